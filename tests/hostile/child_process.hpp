// Runs a command in a child process (through the shell), for tests of what ends a process.
#pragma once

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
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

// Runs a command as run_child does, in a process group of its own that is killed when the command
// ends, or after `limit` seconds: a process it leaves behind (a child of fork() that goes on)
// can neither hold the output open nor outlive the test. The output goes through a file.
inline ChildRun run_child_group(const std::string& command, int limit) {
  ChildRun r;
  char path[] = "/tmp/duet-child-output-XXXXXX";
  const int out = ::mkstemp(path);
  if (out < 0) return r;
  ::unlink(path);
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::setpgid(0, 0);
    ::dup2(out, 1);
    ::dup2(out, 2);
    ::execl("/bin/sh", "sh", "-c", command.c_str(), static_cast<char*>(nullptr));
    ::_exit(127);
  }
  if (pid < 0) return r;
  ::setpgid(pid, pid);  // as the child does: whichever runs first
  int raw = 0;
  for (int waited_ms = 0; ::waitpid(pid, &raw, WNOHANG) == 0; waited_ms += 10) {
    if (waited_ms >= limit * 1000) {
      ::kill(-pid, SIGKILL);
      ::waitpid(pid, &raw, 0);
      break;
    }
    ::usleep(10000);
  }
  ::kill(-pid, SIGKILL);  // whatever it left running
  if (WIFEXITED(raw)) r.status = WEXITSTATUS(raw);
  char buf[4096];
  for (off_t at = 0;;) {
    const ssize_t n = ::pread(out, buf, sizeof buf, at);
    if (n <= 0) break;
    r.output.append(buf, static_cast<std::size_t>(n));
    at += n;
  }
  ::close(out);
  return r;
}

}  // namespace duet_test
