// Runs a command in a child process (through the shell), for tests of what ends a process.
#pragma once

#include <sys/wait.h>

#include <cstdio>
#include <string>

namespace duet_test {

struct ChildRun {
  int status = -1;     // exit status, or -1 if the child did not exit normally
  std::string output;  // standard output and standard error
};

inline ChildRun run_child(const std::string& command) {
  ChildRun r;
  FILE* pipe = popen((command + " 2>&1").c_str(), "r");
  if (!pipe) return r;
  char buf[4096];
  for (std::size_t n; (n = std::fread(buf, 1, sizeof buf, pipe)) > 0;) r.output.append(buf, n);
  const int raw = pclose(pipe);
  if (WIFEXITED(raw)) r.status = WEXITSTATUS(raw);
  return r;
}

}  // namespace duet_test
