// SPDX-License-Identifier: Apache-2.0
// epoll for the benchmarks' receivers: Swift's Glibc module does not include <sys/epoll.h>.
#ifndef C_EPOLL_H
#define C_EPOLL_H

#include <sys/epoll.h>

/// Watches `descriptor` for input, with the descriptor itself as the event's data.
int c_epoll_watch_input(int epoll, int descriptor);

/// Waits for input; writes up to `capacity` ready descriptors to `ready` and returns their count (or -1 with errno).
int c_epoll_wait_input(int epoll, int *ready, int capacity, int timeout_ms);

#endif
