// What `choc contact` prints: a table for people, or the JSON of docs/REFERENCE.md for scripts.
#pragma once

#include "choc/contact/contact_study.hpp"

#include <string>

namespace choc {

// The model and its closed forms, then per method and n the errors, the restitution and
// the cost, and the measured orders.
std::string contact_table(const ContactReport& report);

// { "input": {...}, "model": {...}, "methods": [ { "name", "runs": [...], "order": {...} } ] }
std::string contact_json(const ContactReport& report);

} // namespace choc
