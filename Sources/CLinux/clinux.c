#include "clinux.h"
#include <sys/prctl.h>

int clinux_become_child_subreaper(void) {
    return prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
}
