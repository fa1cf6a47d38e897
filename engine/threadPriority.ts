// The CPU priority of the calling thread alone, for worker threads doing background work. Linux
// applies a priority set on a thread id to that thread only (the id read from /proc/thread-self);
// elsewhere, or without the right to set that priority (raising one again needs root or
// CAP_SYS_NICE), nothing changes and the thread keeps the priority it has.

import { readlinkSync } from 'node:fs';
import os from 'node:os';

let ownThreadId: number | null | undefined;

function threadIdOfCaller(): number | null {
  if (ownThreadId === undefined) {
    try {
      const id = Number(readlinkSync('/proc/thread-self').split('/').pop());
      ownThreadId = Number.isInteger(id) && id > 0 ? id : null;
    } catch {
      ownThreadId = null; // not Linux
    }
  }
  return ownThreadId;
}

/** Sets this thread's priority (os.setPriority's scale, -20 to 19); false when it could not. */
export function setOwnThreadPriority(priority: number): boolean {
  const threadId = threadIdOfCaller();
  if (threadId === null) return false;
  try {
    os.setPriority(threadId, priority);
    return true;
  } catch {
    return false;
  }
}
