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

/// gettext for text domain `domain` bound to `directory` (UTF-8 out, whatever
/// LC_CTYPE is), after setlocale(LC_MESSAGES, ""): 0, or -1 when the person's
/// locale is not installed (texts then stay English).
int clinux_gettext_open(const char *domain, const char *directory);

/// dgettext / dngettext (libintl.h, which Glibc does not import).
const char *clinux_dgettext(const char *domain, const char *msgid);
const char *clinux_dngettext(const char *domain, const char *singular, const char *plural, unsigned long count);

/// The person's locale's word for `item` (LC_TIME): read through newlocale,
/// so nothing global changes for the C libraries in the process.
/// item: 0 T_FMT, 1 AM_STR, 2 PM_STR, 4 D_FMT, 10 + n ABDAY_(n+1) (n = 0 Sunday).
const char *clinux_locale_word(int item);
