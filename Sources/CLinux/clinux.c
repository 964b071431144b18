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

#include <libintl.h>
#include <locale.h>
#include <langinfo.h>

int clinux_gettext_open(const char *domain, const char *directory) {
    const char *messages = setlocale(LC_MESSAGES, "");
    bindtextdomain(domain, directory);
    bind_textdomain_codeset(domain, "UTF-8");
    return messages ? 0 : -1;
}

const char *clinux_dgettext(const char *domain, const char *msgid) {
    return dgettext(domain, msgid);
}

const char *clinux_dngettext(const char *domain, const char *singular, const char *plural, unsigned long count) {
    return dngettext(domain, singular, plural, count);
}

const char *clinux_locale_word(int item) {
    static locale_t person = (locale_t)0;
    if (!person) person = newlocale(LC_TIME_MASK, "", (locale_t)0);
    if (!person) return NULL;
    nl_item which;
    switch (item) {
    case 0: which = T_FMT; break;
    case 1: which = AM_STR; break;
    case 2: which = PM_STR; break;
    case 4: which = D_FMT; break;
    default:
        if (item < 10 || item > 16) return NULL;
        which = ABDAY_1 + (item - 10);
    }
    return nl_langinfo_l(which, person);
}
