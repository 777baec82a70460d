// A model whose third call of each case (each trial) throws: a failure whose draft the model
// drafts test takes, with the model's calls and setup. In a header of its own, in a named
// namespace, so that the drafts (a parallel one checks the spec's scenario) compile where they
// are gathered.
#pragma once

#include <duet/result.hpp>

#include <memory>
#include <stdexcept>

namespace model_drafts {

template <class Model>
struct ThirdCallThrows : Model {
  static inline int calls = 0;
  static std::unique_ptr<typename Model::Sut> init_sut() {
    calls = 0;
    if constexpr (requires { Model::init_sut(); }) return Model::init_sut();
    else return std::make_unique<typename Model::Sut>();
  }
  static duet::Result run(const typename Model::Cmd& c, typename Model::Sut& s) {
    if (++calls == 3) throw std::runtime_error("the third call");
    return Model::run(c, s);
  }
};

}  // namespace model_drafts
