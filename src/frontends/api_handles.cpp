// The live values of one duet::Api abstract type in a scenario (detail::HandleStore), compiled
// once: what needs the values' types comes from the type's HandleTypes.
#include <algorithm>
#include <new>
#include <stdexcept>

#include "duet/api.hpp"

namespace duet {
namespace detail {
namespace {

constexpr std::size_t chunk_bytes = 1024;  // at most, unless one handle is larger

std::size_t round_up(std::size_t n, std::size_t align) { return (n + align - 1) / align * align; }

}  // namespace

HandleStore::HandleStore(const HandleTypes& types, std::shared_ptr<const HandleCheck> check, std::string type)
    : types_(&types),
      check_(std::move(check)),
      type_(std::move(type)),
      values_offset_(round_up(sizeof(std::string), types.align)),
      stride_(round_up(values_offset_ + types.size, std::max(types.align, alignof(std::string)))) {
  while ((std::size_t{2} << chunk_shift_) * stride_ <= chunk_bytes) ++chunk_shift_;
}

std::size_t HandleStore::chunk_align() const { return std::max(types_->align, alignof(std::string)); }

HandleStore::~HandleStore() {
  for (std::size_t i = 0; i < size_; ++i) {  // oldest first, as a std::deque would
    types_->destroy(values(i));
    std::destroy_at(std::launder(reinterpret_cast<std::string*>(place(i))));
  }
  for (std::size_t k = 0; k < chunks_; ++k) ::operator delete(chunk(k), std::align_val_t(chunk_align()));
}

unsigned char* HandleStore::next_place() {
  const std::size_t chunk_places = std::size_t{1} << chunk_shift_;
  if (size_ == chunks_ * chunk_places) {
    if (chunks_ >= inline_chunks) more_chunks_.reserve(chunks_ + 1 - inline_chunks);  // no throw once allocated
    auto* made = static_cast<unsigned char*>(::operator new(chunk_places* stride_, std::align_val_t(chunk_align())));
    if (chunks_ < inline_chunks) first_chunks_[chunks_] = made;
    else more_chunks_.push_back(made);
    ++chunks_;
  }
  return place(size_);
}

void HandleStore::add(std::string name, void (*construct)(void* where, void* context), void* context) {
  unsigned char* where = next_place();
  construct(where + values_offset_, context);
  ::new (static_cast<void*>(where)) std::string(std::move(name));
  ++size_;
}

std::size_t HandleStore::find(const std::string& wanted) const {
  for (std::size_t i = 0; i < size_; ++i)
    if (name(i) == wanted) return i;
  return size_;
}

// Declared in duet/detail/api/arguments.hpp (a scenario's argument that names a live value).
std::string no_handle_named(const std::string& name) {
  return "no live value of its type is named " + name + " at that point of the scenario";
}
std::string handle_fails_where(const std::string& name) {
  return name + " does not satisfy the argument's where() precondition";
}

std::optional<IllFormed> HandleStore::check_all() const {
  if (!check_) return std::nullopt;
  for (std::size_t i = 0; i < size_; ++i) {
    std::string why;
    try {
      Verdict v = (*check_)(values(i));
      if (v.ok) continue;
      why = std::move(v.why);
    } catch (...) {
      why = threw("it");
    }
    return ill_formed(name(i), why, type_);
  }
  return std::nullopt;
}

std::unique_ptr<HandleStore> HandleStore::clone() const {
  if (!types_->copy) throw std::logic_error("duet::Api under threads needs copyable reference and candidate types");
  auto copy = empty_copy();
  for (std::size_t i = 0; i < size_; ++i) {
    unsigned char* where = copy->next_place();
    std::string name_copy = name(i);
    types_->copy(where + copy->values_offset_, values(i));
    ::new (static_cast<void*>(where)) std::string(std::move(name_copy));
    ++copy->size_;
  }
  return copy;
}

std::unique_ptr<HandleStore> HandleStore::empty_copy() const {
  return std::make_unique<HandleStore>(*types_, check_, type_);
}

bool HandleStore::same_references(const HandleStore& other) const {
  if (other.size_ != size_) return false;
  if (!types_->same_reference) return false;
  for (std::size_t i = 0; i < size_; ++i)
    if (!types_->same_reference(values(i), other.values(i))) return false;
  return true;
}

void HandleStore::take_candidates(HandleStore& from) {
  for (std::size_t i = 0; i < size_ && i < from.size_; ++i) types_->take_candidate(values(i), from.values(i));
}

}  // namespace detail
}  // namespace duet
