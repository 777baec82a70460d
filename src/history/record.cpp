// Recording a history from a live run.
#include <algorithm>
#include <stdexcept>

#include "duet/executor.hpp"
#include "duet/history.hpp"

namespace duet::history {

Recorder::Recorder(std::size_t clients, std::string model) : model_(std::move(model)), per_client_(clients) {}

std::size_t Recorder::invoke(std::size_t process, std::string f, std::optional<Value> key, Value input) {
  if (process >= per_client_.size()) throw std::out_of_range("duet::history::Recorder: no client " + std::to_string(process));
  std::vector<Operation>& mine = per_client_[process];
  if (!mine.empty() && mine.back().outcome == Outcome::info && mine.back().response == 0)
    throw std::logic_error("duet::history::Recorder: client " + std::to_string(process) + " invoked twice without completing");
  Operation op;
  op.process = static_cast<std::int64_t>(process);
  op.f = std::move(f);
  op.key = std::move(key);
  op.input = std::move(input);
  op.outcome = Outcome::info;
  op.response = 0;  // marks "in flight" until complete()
  op.invoke = duet::detail::event_time();
  mine.push_back(std::move(op));
  return mine.size() - 1;
}

void Recorder::complete(std::size_t process, std::size_t handle, Value output, Outcome outcome) {
  const std::uint64_t now = duet::detail::event_time();
  if (process >= per_client_.size() || handle >= per_client_[process].size())
    throw std::out_of_range("duet::history::Recorder: no such operation");
  Operation& op = per_client_[process][handle];
  op.outcome = outcome;
  if (outcome == Outcome::info) {
    op.response = Operation::kPending;
    return;
  }
  op.response = now;
  if (outcome == Outcome::ok) op.output = std::move(output);
}

History Recorder::history(std::string source) const {
  History h;
  h.source = std::move(source);
  h.format = Format::duet;
  h.default_model = model_;
  for (const auto& mine : per_client_)
    for (const Operation& op : mine) {
      h.ops.push_back(op);
      if (h.ops.back().response == 0) h.ops.back().response = Operation::kPending;  // never completed
    }
  std::stable_sort(h.ops.begin(), h.ops.end(), [](const Operation& a, const Operation& b) { return a.invoke < b.invoke; });
  return h;
}

}  // namespace duet::history
