#define _GNU_SOURCE
#include "clinux.h"
#include <sys/prctl.h>

int clinux_become_child_subreaper(void) {
    return prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
}

#include <sys/epoll.h>
#include <unistd.h>
#include <errno.h>

int clinux_epoll_of_readable(const int *fds, int count) {
    int set = epoll_create1(EPOLL_CLOEXEC);
    if (set < 0) return -1;
    for (int i = 0; i < count; i++) {
        struct epoll_event event = { .events = EPOLLIN, .data = { .fd = fds[i] } };
        if (epoll_ctl(set, EPOLL_CTL_ADD, fds[i], &event) < 0) {
            int saved = errno;
            close(set);
            errno = saved;
            return -1;
        }
    }
    return set;
}

#include <fcntl.h>

int clinux_pipe_cloexec(int fds[2]) {
    return pipe2(fds, O_CLOEXEC);
}
