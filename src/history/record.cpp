// Recording a history from a live run.
#include <algorithm>
#include <stdexcept>

#include "duet/executor.hpp"
#include "duet/history.hpp"

namespace duet::history {

Recorder::Recorder(std::size_t clients, std::string model, Clock clock)
    : model_(std::move(model)), clock_(std::move(clock)), per_client_(clients), completed_(clients) {}

std::uint64_t Recorder::now() const { return clock_ ? clock_() : duet::detail::event_time(); }

std::size_t Recorder::invoke(std::size_t process, std::string f, std::optional<Value> key, Value input) {
  if (process >= per_client_.size())
    throw std::out_of_range("duet::history::Recorder: no client " + std::to_string(process));
  std::vector<Operation>& mine = per_client_[process];
  if (!mine.empty() && !completed_[process].back())
    throw std::logic_error("duet::history::Recorder: client " + std::to_string(process) +
                           " invoked twice without completing");
  Operation op;
  op.process = static_cast<std::int64_t>(process);
  op.f = std::move(f);
  op.key = std::move(key);
  op.input = std::move(input);
  op.outcome = Outcome::info;  // until complete()
  op.response = Operation::kPending;
  op.invoke = now();
  mine.push_back(std::move(op));
  completed_[process].push_back(false);
  return mine.size() - 1;
}

void Recorder::complete(std::size_t process, std::size_t handle, Value output, Outcome outcome) {
  const std::uint64_t now = this->now();
  if (process >= per_client_.size() || handle >= per_client_[process].size())
    throw std::out_of_range("duet::history::Recorder: no such operation");
  Operation& op = per_client_[process][handle];
  completed_[process][handle] = true;
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
    for (const Operation& op : mine) h.ops.push_back(op);  // one never completed stays info, pending
  std::stable_sort(h.ops.begin(), h.ops.end(), [](const Operation& a, const Operation& b) { return a.invoke < b.invoke; });
  return h;
}

}  // namespace duet::history
