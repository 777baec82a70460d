// The row format of the history timeline's data block, declared once: the page carries the
// names ("f": the fields of each operation's row in "o", in this order; "fl": the flag bits), and
// its script (assets/timeline_rows.js) reads the rows by those names, never by position.
#pragma once

#include <array>
#include <cstddef>
#include <string_view>

namespace duet::history::timeline_rows {

// X(name): one number per operation, in this order.
#define DUET_TIMELINE_ROW_FIELDS(X)                                                   \
  X(op)            /* the operation's index in the history */                         \
  X(lane)          /* its sub-lane (row) */                                           \
  X(start)         /* its bar's first rank on the time axis */                        \
  X(end)           /* its bar's last rank ("r", the axis's end, for a pending one) */ \
  X(flags)         /* the flag bits below */                                          \
  X(label)         /* its label's index in the string table "s" */                    \
  X(position)      /* its place in the linearization order + 1 (0: none) */           \
  X(state)         /* the state after it: index in "s" + 1 (0: none) */               \
  X(invoke_line)   /* the line of the history file it was invoked at (0: unknown) */  \
  X(response_line) /* the line it completed at (0: unknown) */                        \
  X(invoke_time)   /* invocation time (a string above 2^53) */                        \
  X(response_time) /* completion time (-1: pending) */

// X(name, bit): the flags field's bits.
#define DUET_TIMELINE_ROW_FLAGS(X)                                       \
  X(fail, 1)             /* completed as failed (:fail) */               \
  X(info, 2)             /* indeterminate (:info) or pending */          \
  X(unknown_result, 4)   /* completed, its result unknown */             \
  X(stuck, 8)            /* the operation that cannot be linearized */   \
  X(other_partition, 16) /* of a partition other than the failing one */ \
  X(witness, 32)         /* in the witness or failing window */          \
  X(witness_open, 64)    /* running where the failing window is cut */

enum Field : std::size_t {
#define DUET_FIELD(name) name,
  DUET_TIMELINE_ROW_FIELDS(DUET_FIELD)
#undef DUET_FIELD
      kFields
};

inline constexpr std::array<std::string_view, kFields> kFieldNames = {
#define DUET_FIELD(name) #name,
    DUET_TIMELINE_ROW_FIELDS(DUET_FIELD)
#undef DUET_FIELD
};

enum Flag : unsigned {
#define DUET_FLAG(name, bit) flag_##name = bit,
  DUET_TIMELINE_ROW_FLAGS(DUET_FLAG)
#undef DUET_FLAG
};

struct FlagName {
  std::string_view name;
  unsigned bit;
};
inline constexpr FlagName kFlags[] = {
#define DUET_FLAG(name, bit) {#name, bit},
    DUET_TIMELINE_ROW_FLAGS(DUET_FLAG)
#undef DUET_FLAG
};

}  // namespace duet::history::timeline_rows
