// SPDX-License-Identifier: Apache-2.0
#include "CEpoll.h"

#include <stdlib.h>

int c_epoll_watch_input(int epoll, int descriptor) {
    struct epoll_event event = {.events = EPOLLIN, .data.fd = descriptor};
    return epoll_ctl(epoll, EPOLL_CTL_ADD, descriptor, &event);
}

int c_epoll_wait_input(int epoll, int *ready, int capacity, int timeout_ms) {
    struct epoll_event events[256];
    int count = epoll_wait(epoll, events, capacity < 256 ? capacity : 256, timeout_ms);
    for (int index = 0; index < count; index++) ready[index] = events[index].data.fd;
    return count;
}
