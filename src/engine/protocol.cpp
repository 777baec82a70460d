#include "engine/protocol.hpp"

#include <algorithm>
#include <utility>

namespace duet::detail {
namespace {

// The request of kind `index` (Request's alternative) from the rest of the message.
template <std::size_t... I>
Request read_alternative(WireReader& in, std::size_t index, std::index_sequence<I...>) {
  Request request;
  const bool known = ((index == I && (wire::read(in, request.emplace<I>()), true)) || ...);
  if (!known) WireReader::malformed("holds a request of an unknown kind");
  return request;
}

}  // namespace

std::string encode_request(const Request& request) {
  WireWriter out;
  out.u64(request.index());
  std::visit([&out](const auto& message) { wire::write(out, message); }, request);
  return out.take();
}

Request decode_request(const std::string& bytes) {
  WireReader in(bytes);
  const std::uint64_t index = in.u64();
  Request request = read_alternative(in, static_cast<std::size_t>(std::min<std::uint64_t>(index, ~std::size_t{0})),
                                     std::make_index_sequence<std::variant_size_v<Request>>{});
  in.expect_end();
  return request;
}

}  // namespace duet::detail
