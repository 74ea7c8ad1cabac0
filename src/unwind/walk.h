// The walk's calls for the core's own loops (the backtrace printer): a cursor advanced without
// copying its frame out, and the frame read where it is. sfu_walk_next is the two together.
#pragma once

#include "sfu/unwind.h"

namespace sfu::unwind {

// To the next frame (the first: the start registers' own); false once the walk has stopped.
bool next_frame(sfu_cursor &c);

// The frame the cursor holds, as sfu_walk_next gives it.
inline void frame_of(const sfu_cursor &c, sfu_frame &f) {
  f.pc = c.pc;
  f.sp = c.sp;
  f.cfa = c.prev_cfa;
  f.module = c.module;
  f.source = c.last_source;
  f.reliable = c.reliable;
  f.stack_kind = uint8_t(c.config->stacks[c.stack_index].kind);
  f.index = uint8_t(c.frames - 1 < 255 ? c.frames - 1 : 255);  // advance counted it already
}

}  // namespace sfu::unwind
