// Linux calls Swift cannot reach through Glibc: variadic (prctl) or behind
// _GNU_SOURCE. Each is a plain function; BlockerSystem wraps them.
#pragma once

/// prctl(PR_SET_CHILD_SUBREAPER, 1): orphans of our children are re-parented
/// to us instead of to the service manager. 0 or -1 with errno.
int clinux_become_child_subreaper(void);

/// An epoll instance (close-on-exec) watching each of `fds` for input: one
/// descriptor that is readable when any of them is. The new fd, or -1 with errno.
int clinux_epoll_of_readable(const int *fds, int count);

/// pipe2(fds, O_CLOEXEC): both ends close-on-exec from the start, so a
/// program spawned meanwhile by another thread cannot inherit them.
int clinux_pipe_cloexec(int fds[2]);
