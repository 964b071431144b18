// Linux calls Swift cannot reach through Glibc: variadic (prctl) or behind
// _GNU_SOURCE. Each is a plain function; BlockerSystem wraps them.
#pragma once

/// prctl(PR_SET_CHILD_SUBREAPER, 1): orphans of our children are re-parented
/// to us instead of to the service manager. 0 or -1 with errno.
int clinux_become_child_subreaper(void);
