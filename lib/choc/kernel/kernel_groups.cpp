// The group rule's solver and the overlap measure in 2D and 3D, compiled once here and linked
// by every program (group_rule.hpp and overlap.hpp declare them extern), not again in each
// source that resolves a group or checks for overlap.
#include "choc/kernel/group_rule.hpp"
#include "choc/kernel/overlap.hpp"

namespace choc {
template class GroupSolver<2>;
template class GroupSolver<3>;
template double max_overlap<2>(const Box<2>&, const Particles<2>&, double);
template double max_overlap<3>(const Box<3>&, const Particles<3>&, double);
} // namespace choc
