// The HTML timeline of a checked history (being written).
#include "duet/history.hpp"
