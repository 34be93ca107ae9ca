// The parent's side of an import in a child process (import_process.hpp): start the child, send
// the request, read the answer until the child closes its end, reap it, and name what happened.
#include "io/assimp/import_process.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <thread>

#include "io/assimp/scene_wire.hpp"
#include "io/error.hpp"
#include "io/memory_budget.hpp"

extern char** environ;

namespace ikfix::io::assimp {
namespace {

using Clock = std::chrono::steady_clock;

std::mutex g_program_mutex;
std::string g_program;
std::atomic<double> g_timeout_seconds{kDefaultImportTimeoutSeconds};

std::string seconds_text(double seconds) {
  char text[32];
  std::snprintf(text, sizeof text, "%g s", seconds);
  return text;
}

// One file descriptor, closed when it goes.
class Fd {
 public:
  explicit Fd(int fd = -1) : fd_(fd) {}
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  ~Fd() { reset(); }
  int get() const { return fd_; }
  void reset() {
    if (fd_ >= 0) close(fd_);
    fd_ = -1;
  }

 private:
  int fd_;
};

// A started child: killed and reaped when it goes unless reaped before, so no path out of an
// import leaves a process or a zombie behind.
class Child {
 public:
  explicit Child(pid_t pid) : pid_(pid) {}
  Child(const Child&) = delete;
  Child& operator=(const Child&) = delete;
  ~Child() {
    if (pid_ > 0) kill_and_reap();
  }
  int kill_and_reap() {
    kill(pid_, SIGKILL);
    return reap(0);
  }
  // Waits for the child (WNOHANG in `flags`: returns -1 while it runs); its wait status.
  int reap(int flags) {
    int status = 0;
    pid_t got;
    do got = waitpid(pid_, &status, flags);
    while (got < 0 && errno == EINTR);
    if (got == 0) return -1;
    pid_ = -1;
    return status;
  }

 private:
  pid_t pid_;
};

// Starts the child with `socket` as its stdin and stdout, every signal at its default and none
// blocked (this process's handlers and masks are not the child's business).
pid_t spawn_child(const std::string& program, const std::string& file, int socket) {
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, socket, STDIN_FILENO);
  posix_spawn_file_actions_adddup2(&actions, socket, STDOUT_FILENO);
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  sigset_t none, all;
  sigemptyset(&none);
  sigfillset(&all);
  posix_spawnattr_setsigmask(&attr, &none);
  posix_spawnattr_setsigdefault(&attr, &all);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
  // The file in argv only names the child in `ps`; the request carries it.
  const char* argv[] = {program.c_str(), kImportChildArgument, file.c_str(), nullptr};
  pid_t pid = -1;
  const int err =
      posix_spawn(&pid, program.c_str(), &actions, &attr, const_cast<char* const*>(argv), environ);
  posix_spawnattr_destroy(&attr);
  posix_spawn_file_actions_destroy(&actions);
  if (err != 0)
    throw InputError(
        file, "cannot start the Assimp import (" + program + ": " + std::strerror(err) + ")");
  return pid;
}

// Sends `request` and reads the answer until the child closes the socket. False when the
// deadline passed first or the answer grew beyond `max_answer` bytes (0: no cap). A child that
// stops reading or dies early only ends the exchange: its wait status says why.
bool exchange(int socket, const std::string& request, Clock::time_point deadline,
              std::uint64_t max_answer, std::string& answer) {
  std::size_t sent = 0;
  bool sending = !request.empty();
  char buffer[64 * 1024];
  for (;;) {
    pollfd p{socket, static_cast<short>(POLLIN | (sending ? POLLOUT : 0)), 0};
    const auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline - Clock::now());
    if (left.count() <= 0) return false;
    const int ready = poll(&p, 1, static_cast<int>(std::min<long long>(left.count(), 1 << 30)));
    if (ready < 0 && errno != EINTR) return true;
    if (ready <= 0) continue;
    if (sending && (p.revents & POLLOUT)) {
      const ssize_t n = send(socket, request.data() + sent, request.size() - sent, MSG_NOSIGNAL);
      if (n > 0) sent += static_cast<std::size_t>(n);
      if ((n < 0 && errno != EAGAIN && errno != EINTR) || sent == request.size()) {
        sending = false;
        shutdown(socket, SHUT_WR);
      }
    }
    if (p.revents & (POLLIN | POLLHUP | POLLERR)) {
      const ssize_t n = recv(socket, buffer, sizeof buffer, 0);
      if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR)) return true;
      if (n > 0) answer.append(buffer, static_cast<std::size_t>(n));
      if (max_answer > 0 && answer.size() > max_answer) return false;
    }
  }
}

// Waits for a child that closed its socket: its wait status, or -1 when the deadline passed
// first (it is killed and reaped).
int wait_for_exit(Child& child, Clock::time_point deadline) {
  for (;;) {
    const int status = child.reap(WNOHANG);
    if (status >= 0) return status;
    if (Clock::now() >= deadline) {
      child.kill_and_reap();
      return -1;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
}

// The line for a child that did not answer normally.
[[noreturn]] void throw_out_of_memory(const std::string& file, std::uint64_t memory_limit_bytes,
                                      const std::string& assimp_message) {
  throw InputError(
      file, "the Assimp import exceeded its memory limit of " + format_bytes(memory_limit_bytes) +
                " (--max-memory)" +
                (assimp_message.empty() ? "" : "; Assimp: " + one_line(assimp_message)));
}

[[noreturn]] void throw_for_status(const std::string& file, int status,
                                   std::uint64_t memory_limit_bytes) {
  if (WIFEXITED(status) && WEXITSTATUS(status) == kChildOutOfMemory)
    throw_out_of_memory(file, memory_limit_bytes, "");
  if (WIFSIGNALED(status))
    throw InputError(file, "the Assimp import crashed (signal " + std::to_string(WTERMSIG(status)) +
                               ", " + one_line(strsignal(WTERMSIG(status))) + ")");
  throw InputError(file, "the Assimp import failed (its process exited with code " +
                             std::to_string(WEXITSTATUS(status)) + ")");
}

bool read_answer(const std::string& file, const std::string& answer,
                 std::uint64_t memory_limit_bytes, Scene& scene, std::string& assimp_error) {
  wire::Result result;
  try {
    result = wire::decode_result(answer, scene);
  } catch (const wire::WireError& e) {
    throw InputError(file, std::string("the Assimp import sent a malformed answer: ") + e.what());
  }
  if (result.status == wire::Status::module_missing) throw InputError(file, result.message);
  if (result.status == wire::Status::out_of_memory)
    throw_out_of_memory(file, memory_limit_bytes, result.message);
  if (result.status == wire::Status::assimp_failed) assimp_error = result.message;
  return result.status == wire::Status::imported;
}

}  // namespace

void run_imports_in(const std::string& program) {
  const std::lock_guard<std::mutex> lock(g_program_mutex);
  g_program = program;
}

std::string import_program() {
  const std::lock_guard<std::mutex> lock(g_program_mutex);
  return g_program;
}

void set_import_timeout(double seconds) {
  g_timeout_seconds.store(std::isfinite(seconds) && seconds > 0 ? seconds : 0.0);
}
double import_timeout() { return g_timeout_seconds.load(); }

bool import_in_child(const ImportRequest& request, std::uint64_t memory_limit_bytes, Scene& scene,
                     std::string& assimp_error) {
  const std::string& file = request.file;
  const double timeout_s = import_timeout();
  const Clock::time_point deadline =
      timeout_s > 0 ? Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                         std::chrono::duration<double>(timeout_s))
                    : Clock::time_point::max();
  const std::string message = wire::encode_request(request, memory_limit_bytes);
  int sockets[2];
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sockets) != 0)
    throw InputError(file, std::string("cannot start the Assimp import (socketpair: ") +
                               std::strerror(errno) + ")");
  Fd ours(sockets[0]), theirs(sockets[1]);
  Child child(spawn_child(import_program(), file, theirs.get()));
  theirs.reset();
  fcntl(ours.get(), F_SETFL, fcntl(ours.get(), F_GETFL) | O_NONBLOCK);
  std::string answer;
  const bool answered = exchange(ours.get(), message, deadline, memory_limit_bytes, answer);
  if (memory_limit_bytes > 0 && answer.size() > memory_limit_bytes)
    throw InputError(file, "the Assimp import answered more than its memory limit of " +
                               format_bytes(memory_limit_bytes) + " (--max-memory)");
  ours.reset();
  const int status = answered ? wait_for_exit(child, deadline) : child.kill_and_reap();
  const bool killed_by_us = !answered || status < 0;
  if (killed_by_us && !(status >= 0 && WIFEXITED(status)))
    throw InputError(file, "the Assimp import timed out after " + seconds_text(timeout_s) +
                               " (--assimp-timeout)");
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
    throw_for_status(file, status, memory_limit_bytes);
  return read_answer(file, answer, memory_limit_bytes, scene, assimp_error);
}

}  // namespace ikfix::io::assimp
