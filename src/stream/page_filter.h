// Leaving events out of a raw ring-buffer page: what a recorded file of a
// -p session must not hold (the targets' child processes without
// --children, a process that got an exited target's pid; task_filter.h)
// is taken out of the pages the trace.dat writer gets, so that record
// keeps what trace shows.
//
// Each event left out becomes padding of its own size, with its time
// delta kept: readers (libtraceevent's kbuffer, so trace-cmd and report)
// skip padding and still add its delta, so the events after it keep their
// times. Nothing moves; the page keeps its size and its header.
//
// Layout (the kernel's ring_buffer.c): a page header (u64 time stamp,
// commit word: the data length in its low 27 bits, then flags),
// then events, each a u32 header (type_len: 5 bits, time_delta: 27 bits)
// and, by type_len: 0, a u32 length and the data; 1-28, type_len * 4
// bytes of data; 29, padding (a u32 length); 30, a time extend; 31, an
// absolute time stamp (8 bytes each).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace kpp {

// Makes the events that start at `offsets` (bytes from the page's start,
// as kbuffer_curr_offset gives them) padding. `data_start`: where the
// events start (the header's size: 16 on 64-bit kernels). False, and the
// page untouched, when an offset is not the start of a data event of the
// page, or the page is not laid out as above.
bool pad_out_events(std::span<uint8_t> page, int data_start, const std::vector<uint32_t> &offsets);

}  // namespace kpp
