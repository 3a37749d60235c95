// Plays the client-side waits of Octokit's plugins 100 times faster in the campaign's processes: the spacing of writes
// (1 s, 3 s for those that notify), retry backoff after 5xx and network errors (1 s, 4 s, 9 s) and Retry-After waits.
// Which requests are made, in which order, and whether one is retried stay exactly as in production; only the
// wall-clock wait shrinks, the way the campaign plays a dead holder's Lease expiry. Both plugins schedule through
// bottleneck/light.js, whose Group limiters (minTime) and 'failed' listeners (retry delay in ms) are scaled here.
import { createRequire } from 'node:module';

const scale = 0.01;

interface GroupLike {
  limiterOptions?: { minTime?: number };
  key: (this: GroupLike, key?: string) => unknown;
}
interface EventsLike {
  trigger: (this: EventsLike, name: string, ...args: unknown[]) => Promise<unknown>;
}
interface BottleneckModule {
  new (): { Events: EventsLike; disconnect(): void };
  Group: { prototype: GroupLike };
}

const scaled = Symbol('campaign: minTime scaled');
let installed = false;

export function playOctokitWaitsFaster(): void {
  if (installed) return;
  installed = true;
  const Bottleneck = createRequire(import.meta.url)('bottleneck/light.js') as BottleneckModule;
  const originalKey = Bottleneck.Group.prototype.key;
  Bottleneck.Group.prototype.key = function key(this: GroupLike & { [scaled]?: boolean }, name?: string): unknown {
    if (!this[scaled] && this.limiterOptions?.minTime) {
      this.limiterOptions.minTime = Math.round(this.limiterOptions.minTime * scale);
      this[scaled] = true;
    }
    return originalKey.call(this, name);
  };
  const probe = new Bottleneck();
  const events = Object.getPrototypeOf(probe.Events) as EventsLike;
  probe.disconnect();
  const originalTrigger = events.trigger;
  events.trigger = async function trigger(this: EventsLike, name: string, ...args: unknown[]): Promise<unknown> {
    const answer = await originalTrigger.call(this, name, ...args);
    return name === 'failed' && typeof answer === 'number' ? Math.round(answer * scale) : answer;
  };
}
