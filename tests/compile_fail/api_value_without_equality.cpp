#include "api_base.hpp"
auto spec = duet::value<cfa::Opaque>();
