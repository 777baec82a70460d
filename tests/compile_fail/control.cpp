// The unbroken spec compiles: the failures beside it are due to what each one breaks.
#include "spec_base.hpp"
duet::CheckResult check() { return duet::check_sequential<cf::Base>(); }
