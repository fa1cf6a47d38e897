// Where frames leave: each frame is serialised once and published on a feed topic, and uWebSockets
// copies it into the send buffer of every subscribed socket (no per-socket JSON). Joins still
// reading their snapshot hold the frames of their topics (see channels/channel.ts).

import type { Counter } from 'prom-client';

/** Frames kept for one join while its snapshot is read; past this the join is refused (`busy`). */
const HELD_FRAMES_PER_JOIN_MAX = 10_000;

export interface Holder {
  held: string[];
  overflowed: boolean;
}

interface Publisher {
  publish(topic: string, message: string): boolean;
  numSubscribers(topic: string): number;
}

export class Hub {
  private readonly holders = new Map<string, Set<Holder>>();
  private publisher: Publisher | undefined;

  constructor(private readonly published?: Counter) {}

  attach(publisher: Publisher | undefined): void {
    this.publisher = publisher;
  }

  /** Whether anyone listens on `topic` (callers skip building frames nobody would get). */
  wants(topic: string): boolean {
    return this.holders.has(topic) || (this.publisher !== undefined && this.publisher.numSubscribers(topic) > 0);
  }

  publish(topic: string, frame: string): void {
    const holders = this.holders.get(topic);
    if (holders) {
      for (const holder of holders) {
        if (holder.held.length >= HELD_FRAMES_PER_JOIN_MAX) holder.overflowed = true;
        else holder.held.push(frame);
      }
    }
    if (this.publisher && this.publisher.numSubscribers(topic) > 0) {
      this.publisher.publish(topic, frame);
      this.published?.inc();
    }
  }

  hold(holder: Holder, topics: readonly string[]): void {
    for (const topic of topics) {
      let set = this.holders.get(topic);
      if (!set) {
        set = new Set();
        this.holders.set(topic, set);
      }
      set.add(holder);
    }
  }

  release(holder: Holder, topics: readonly string[]): void {
    for (const topic of topics) {
      const set = this.holders.get(topic);
      if (!set) continue;
      set.delete(holder);
      if (set.size === 0) this.holders.delete(topic);
    }
  }
}
