// A drawn call of a duet::Api operation (detail::ApiCall): its arguments and results held
// erased, and the calls into the operation's typed part (OpTypedPart), compiled once for every
// operation of every test file.
#include <memory>
#include <string>

#include "duet/api.hpp"

namespace duet {
namespace detail {
namespace {

/// Runs `call`, keeping its exception in `exception`; Unimplemented, BackOff and the engine's
/// signals pass through.
template <class F>
void run_captured(Result& exception, const F& call) {
  if (exception.is_exception()) exception = Result();
  try {
    call();
  } catch (const Unimplemented&) {
    throw;
  } catch (const BackOff&) {
    throw;
  } catch (const EngineSignal&) {
    throw;
  } catch (...) {
    exception = Result::current_exception();
  }
}

/// Writes "name(a, b, c)" from the arguments' texts into `text`, whose capacity a call keeps
/// from draw to draw.
void write_call_text(std::string& text, const std::string& name, const ArgSlot* arguments, std::size_t count) {
  std::size_t size = name.size() + 2;
  for (std::size_t i = 0; i < count; ++i) size += arguments[i].text.size() + 2;
  text.clear();
  text.reserve(size);
  text += name;
  text += '(';
  for (std::size_t i = 0; i < count; ++i) {
    if (i > 0) text += ", ";
    text += arguments[i].text;
  }
  text += ')';
}

}  // namespace

OpBase::OpBase(std::string name, const OpShape& shape)
    : name(std::move(name)),
      shape(shape),
      parallel_ok(!shape.solo && shape.kind != SpecKind::nondet),
      crash_ok(shape.kind != SpecKind::nondet) {}
OpBase::~OpBase() = default;

std::unique_ptr<ApiCall> OpBase::new_call() const { return std::make_unique<ApiCall>(*this); }

ApiCall::ApiCall(const OpBase& op) : op(&op), arguments(std::make_unique<ArgSlot[]>(op.arity)) {}
ApiCall::~ApiCall() = default;

bool ApiCall::draw_arguments(Source& src, Env& env) {
  reference.reset();
  candidate.reset();
  for (std::size_t i = 0; i < op->arity; ++i) arguments[i].clear();
  if (!op->typed.draw(*op, *this, src, env)) return false;
  write_call_text(text, op->name, arguments.get(), op->arity);
  return true;
}

std::string ApiCall::give_arguments(const std::vector<std::any>& args, Env& env) {
  reference.reset();
  candidate.reset();
  for (std::size_t i = 0; i < op->arity; ++i) arguments[i].clear();
  if (std::string why = op->typed.give(*op, *this, args, env); !why.empty()) return why;
  write_call_text(text, op->name, arguments.get(), op->arity);
  return {};
}

void ApiCall::rebind(Env& env) {
  for (std::size_t i = 0; i < op->arity; ++i)
    if (arguments[i].rebind_fn) arguments[i].rebind_fn(arguments[i], env);
}

void ApiCall::run_reference() {
  if (!op->typed.run_reference) return;  // solo and nondet: the reference does not run alone
  reference.reset();
  run_captured(reference_threw, [&] { op->typed.run_reference(*op, *this); });
}

void ApiCall::run_candidate() {
  candidate.reset();
  run_captured(candidate_threw, [&] { op->typed.run_candidate(*op, *this); });
}

bool ApiCall::judge_candidate(Result& seen, std::string& why) {
  return op->typed.judge ? op->typed.judge(*op, *this, seen, why) : false;
}

bool ApiCall::deconstruct(Env& env, bool keep_candidate, std::string& shown, std::optional<Mismatch>& mismatch) {
  if (!op->typed.deconstruct) return true;
  return op->typed.deconstruct(op->result_spec, reference.get(), candidate.get(), env, keep_candidate, shown, mismatch);
}

std::string ApiCall::show_reference() const {
  if (!op->typed.show_reference || !reference.engaged()) return {};
  return op->typed.show_reference(op->result_spec, reference.get());
}

std::string ApiCall::show_candidate() const {
  if (!op->typed.show_candidate || !candidate.engaged()) return {};
  return op->typed.show_candidate(op->result_spec, candidate.get());
}

void ApiCall::release() {
  reference.reset();
  candidate.reset();
  for (std::size_t i = 0; i < op->arity; ++i) arguments[i].clear();
}

}  // namespace detail
}  // namespace duet
