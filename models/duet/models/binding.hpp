// Shared by the models: the subject, made by Binding::make() when the binding has one.
#pragma once

#include <memory>

namespace duet::models::detail {

template <class Binding>
std::unique_ptr<typename Binding::Sut> make_subject() {
  if constexpr (requires { Binding::make(); }) return Binding::make();
  else return std::make_unique<typename Binding::Sut>();
}

}  // namespace duet::models::detail
