// A check whose result is dropped would pass silently: the result type is [[nodiscard]], so
// under -Werror each dropped result is an error (every kind of check, one per line).
#include "spec_base.hpp"
#include <duet/fuzz.hpp>
void drop(const duet::Api& api, const duet::Lin<cf::Counter>& lin, const duet::FuzzTarget& target) {
  duet::check_sequential<cf::Base>();
  duet::check_parallel<cf::Base>();
  duet::expect_unsafe<cf::Base>();
  api.check();
  lin.check_stress();
  target({}, {});
}
