// The byte form of a state, for checkpoints: values are stored as their bytes in memory
// (the machine's byte order and doubles exactly as they are, so a state read back is the
// same state to the bit), vectors and strings as a 64-bit count and their elements.
// Only trivially copyable types go in as bytes; everything else is written field by field
// by its owner (Engine::save, the observers' save).
//
// One field list for save and restore (as cereal's and Boost.Serialization's
// `serialize(Archive&)`): an object names its fields once, in
//     template <class Archive> void fields(Archive& ar) { ar(a, b, c); }
// and saves with fields(writer), restores with fields(reader). ArchiveWriter's call puts the
// fields, ArchiveReader's gets them back in the same order, so the two lists cannot drift
// apart. A field is anything put/get take, an object with its own fields(Archive&), or one
// with save(ArchiveWriter&) and restore(ArchiveReader&); `Archive::loading` tells the two
// directions apart where a field list must (a representation converted on the way, an
// object built only when the state holds one). What a reader got is checked by its owner
// after the list.
//
// A reader never trusts a count: a vector's length is checked against the bytes left
// before anything is allocated, so a damaged file fails with ArchiveError, never with a
// huge allocation or a read past the end. (The checkpoint file also carries a checksum;
// this is the second line of defence.)
#pragma once

#include <cstdint>
#include <cstring>
#include <optional>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

namespace choc {

// A state that cannot be read back: truncated, or not what the reader expected.
class ArchiveError : public std::runtime_error {
  public:
    using std::runtime_error::runtime_error;
};

template <class T>
concept Bytes = std::is_trivially_copyable_v<T>;

class ArchiveWriter {
  public:
    static constexpr bool loading = false;
    // The fields, in order (see the top of the file).
    template <class... T>
    void operator()(T&&... fields) {
        (field(fields), ...);
    }

    template <Bytes T>
    void put(const T& value) {
        const auto* p = reinterpret_cast<const char*>(&value);
        bytes_.append(p, sizeof(T));
    }
    template <Bytes T, class A>
    void put(const std::vector<T, A>& v) {
        put(std::uint64_t{v.size()});
        if (!v.empty())
            bytes_.append(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(T));
    }
    void put(const std::string& s) {
        put(std::uint64_t{s.size()});
        bytes_.append(s);
    }
    template <Bytes T>
    void put(const std::optional<T>& value) {
        put(value.has_value());
        put(value.value_or(T{}));
    }
    // A marker that a reader checks with `expect`: a misaligned reader (a section of the
    // wrong size) fails at the next tag instead of reading nonsense.
    void tag(std::uint32_t t) { put(t); }
    // A tag between the sections of a field list: the writer puts it, the reader expects it.
    void section(std::uint32_t t, const char*) { tag(t); }

    const std::string& bytes() const { return bytes_; }

  private:
    // (fields() is one function for both directions, so it is not const; the writer only
    // reads what it is given)
    template <class T>
    void field(T& value) {
        using Plain = std::remove_const_t<T>;
        if constexpr (requires(Plain & v) { v.fields(*this); })
            const_cast<Plain&>(value).fields(*this);
        else if constexpr (requires { value.save(*this); })
            value.save(*this);
        else
            put(value);
    }

    std::string bytes_;
};

class ArchiveReader {
  public:
    // Reads `bytes` in place: they must outlive the reader (a temporary is refused).
    explicit ArchiveReader(const std::string& bytes) : data_(bytes.data()), left_(bytes.size()) {}
    explicit ArchiveReader(std::string&&) = delete;

    static constexpr bool loading = true;
    // The fields, in the order they were written (see the top of the file).
    template <class... T>
    void operator()(T&... fields) {
        (field(fields), ...);
    }

    template <Bytes T>
    void get(T& value) {
        take(&value, sizeof(T));
    }
    template <Bytes T>
    T get() {
        T value;
        take(&value, sizeof(T));
        return value;
    }
    template <Bytes T, class A>
    void get(std::vector<T, A>& v) {
        const auto n = count(sizeof(T));
        v.resize(n);
        take(v.data(), n * sizeof(T));
    }
    void get(std::string& s) {
        const auto n = count(1);
        s.assign(data_, n);
        data_ += n;
        left_ -= n;
    }
    template <Bytes T>
    void get(std::optional<T>& value) {
        const bool has = get<bool>();
        const T v = get<T>();
        value = has ? std::optional<T>(v) : std::nullopt;
    }
    void expect(std::uint32_t t, const char* section) {
        if (get<std::uint32_t>() != t)
            throw ArchiveError(std::string("the state is damaged at its ") + section);
    }
    void section(std::uint32_t t, const char* name) { expect(t, name); }
    bool done() const { return left_ == 0; }

  private:
    template <class T>
    void field(T& value) {
        if constexpr (requires { value.fields(*this); })
            value.fields(*this);
        else if constexpr (requires { value.restore(*this); })
            value.restore(*this);
        else
            get(value);
    }

    void take(void* out, std::size_t n) {
        if (n > left_) throw ArchiveError("the state ends too early");
        if (n == 0) return; // an empty vector's data() may be null, which memcpy may not take
        std::memcpy(out, data_, n);
        data_ += n;
        left_ -= n;
    }
    // A count of elements of `size` bytes, no more than the bytes left can hold.
    std::size_t count(std::size_t size) {
        const auto n = get<std::uint64_t>();
        if (n > left_ / size) throw ArchiveError("the state ends too early");
        return static_cast<std::size_t>(n);
    }

    const char* data_;
    std::size_t left_;
};

} // namespace choc
