// Boxes for a run: the ids the user named (used as they are), or boxes created on demand, one
// per worker, and terminated at the end. A box that dies is replaced for the flows still to run.
// Flows do not see each other: before a flow follows another on a box, the box gets back the
// resolution and scale it had when the run got it, an Android device the state a flow set up
// (airplane mode, location, permissions, rotation, dark mode: deviceState.ts), and a Linux box a
// fresh browser (the old one closed). A box that cannot be put back, or whose browser cannot be
// closed, is retired with a warning: a box the run created is replaced, a box the user named is not
// used again.
import type { BoxClient } from '../api/client.js';
import type { Box } from '../api/schemas.js';
import { BoxflowError } from '../errors.js';
import type { Flow } from '../flow/types.js';
import { restoreAndroid, unchanged, type AndroidChanges } from './deviceState.js';
import type { RunOptions } from './options.js';
import type { BoxInfo, ErrorInfo } from './types.js';

/** What flows changed on a box that the next flow must not inherit, and what it was before. */
export interface BoxState {
  /** The real screen size before the run first changed it (read once, just before that change). */
  resolution?: { width: number; height: number };
  /** The action scale before the run first changed it. */
  scale?: number;
  resolutionChanged: boolean;
  scaleChanged: boolean;
  /** Android device state the flow changed through device commands, each as it was before (steps/device.ts records it). */
  android?: AndroidChanges;
}

interface Slot {
  box: BoxInfo;
  state: BoxState;
  busy: boolean;
  /** A flow of this run has used the box. */
  used: boolean;
  created: boolean;
  dead: boolean;
  /** Why the box was retired: what could not be put back after a flow. */
  retired?: string;
}

export interface Lease {
  box: BoxInfo;
  /** Shared with the flow: its setResolution/setScale steps record what they change here. */
  state: BoxState;
  release(state: 'ok' | 'dead'): void;
}

export class BoxPool {
  readonly #slots: Slot[] = [];
  readonly #waiters: (() => void)[] = [];
  readonly #seen: BoxInfo[] = [];
  #limit = 1;
  #creating = 0;
  /** Boxes that could not be put back after a flow (retired, or left changed at the end of the run). */
  readonly warnings: ErrorInfo[] = [];

  /** `warn` says each warning as it happens (default: a `warning:` line on stderr). */
  constructor(
    private readonly client: BoxClient,
    private readonly options: RunOptions,
    private readonly warn: (message: string) => void = (message) => void process.stderr.write(`warning: ${message}\n`),
  ) {}

  get size(): number {
    return this.#slots.filter((s) => !s.dead).length;
  }

  /** Checks the service answers (and the key is accepted) and adopts the named boxes. */
  async start(workers: number): Promise<void> {
    this.#limit = workers;
    if (!this.options.boxes.ids.length) {
      await this.client.listBoxes({ pageSize: 1 }, { maxRetries: 1 });
      return;
    }
    for (const id of this.options.boxes.ids) {
      const box = await this.client.getBox(id);
      if (box.status !== 'running') throw new BoxflowError('BOX_UNAVAILABLE', `box ${id} is ${box.status}, not running`);
      this.#add({ id: box.id, type: box.type }, false);
    }
  }

  boxes(): BoxInfo[] {
    return [...this.#seen];
  }

  async acquire(flow: Flow): Promise<Lease> {
    const want = flow.box;
    for (;;) {
      const free = this.#slots.find((s) => !s.busy && !s.dead && matches(s.box, want));
      if (free) {
        const lease = this.#lease(free);
        // A flow that follows another on a box starts from the box as the run found it, with a
        // fresh browser (as a Playwright test gets a fresh context); the first flow finds the box
        // as it is. A box that cannot be put back is not used again: results must not depend on
        // which flow ran before.
        if (free.used) {
          try {
            await this.#restore(free);
            if (free.box.type === 'linux') await this.#closeBrowser(free);
          } catch (err) {
            // Never silent: the run says which box, what was left, and what happens to the box.
            free.retired = (err as Error).message;
            this.#warning(err, `box ${free.box.id} is not used again: ${free.retired}; ${free.created ? 'a new box takes its place' : 'the flows still to run need another of the boxes named'}`);
            lease.release('dead');
            continue;
          }
        }
        free.used = true;
        return lease;
      }
      const type = want === 'android' ? 'android' : want === undefined || want === 'linux' ? 'linux' : undefined;
      const mayCreate = !this.options.boxes.ids.length && type && this.#slots.filter((s) => !s.dead && s.created && s.box.type === type).length + this.#creating < this.#limitOf(type);
      if (mayCreate) {
        this.#creating++;
        let box: Box;
        try {
          box = await this.#create(type);
        } catch (err) {
          // Workers that waited for this box wake up and try for themselves: each either gets a
          // box or fails with an error of its own, never waits for a box that will not come.
          this.#creating--;
          this.#wake();
          throw err;
        }
        this.#creating--;
        const slot = this.#add({ id: box.id, type: box.type }, true);
        slot.used = true;
        return this.#lease(slot);
      }
      if (!this.#slots.some((s) => !s.dead && matches(s.box, want)) && !this.#creating) {
        const retired = this.#slots.filter((s) => s.retired && matches(s.box, want)).map((s) => `; box ${s.box.id} was retired: ${s.retired}`).join('');
        throw new BoxflowError('BOX_UNAVAILABLE', `no box for this flow: it asks for ${want ?? 'linux'}, the run has ${this.#slots.filter((s) => !s.dead).map((s) => `${s.box.id} (${s.box.type})`).join(', ') || 'none'}${retired}`);
      }
      // A worker waits only while a box it may use is busy or being created: releasing the box,
      // or the creation ending either way, wakes it.
      await new Promise<void>((resolve) => this.#waiters.push(resolve));
    }
  }

  /** Workers waiting in acquire() for a box to be released or created. */
  get waiting(): number {
    return this.#waiters.length;
  }

  /**
   * True when the service says the box is gone: it answers the box as terminated or in error, or
   * answers 404 for it. A box whose state cannot be read (a network blip, a 5xx, a timeout) is
   * not dead: the flow keeps its own error.
   */
  async isDead(box: BoxInfo): Promise<boolean> {
    try {
      const { status } = await this.client.getBox(box.id, { maxRetries: 1, timeoutMs: 10_000 });
      return status === 'terminated' || status === 'error';
    } catch (err) {
      return BoxflowError.is(err) && (err.code === 'NOT_FOUND' || err.code === 'BOX_NOT_FOUND');
    }
  }

  async close(): Promise<void> {
    // Boxes the user named are left as the run found them, and the devices of created Android boxes;
    // what cannot be put back is said.
    const named = this.#slots.filter((s) => !s.created && !s.dead);
    const restored = await Promise.allSettled(named.map((s) => this.#restore(s)));
    restored.forEach((r, i) => {
      if (r.status === 'rejected') this.#warning(r.reason, `box ${named[i]!.box.id} is not as the run found it: ${(r.reason as Error).message}`);
    });
    const created = this.#slots.filter((s) => s.created);
    // A created Android box is terminated, but its device is not: the service's next box gets it
    // (a device farm, a phone on a desk). What the flows set through device commands is put back first.
    const devices = created.filter((s) => !s.dead && s.state.android && !unchanged(s.state.android));
    await Promise.all(
      devices.map((s) =>
        restoreAndroid(this.client, s.box.id, s.state.android!, 30_000).catch((err: unknown) =>
          this.#warning(err, `box ${s.box.id}'s device is not as the run found it: ${(err as Error).message}`),
        ),
      ),
    );
    const results = await Promise.allSettled(created.map((s) => this.client.terminateBox(s.box.id, {})));
    const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failed && !created.every((s) => s.dead)) throw failed.reason;
  }

  /** config `boxes: {linux: n, android: m}` sizes the pool; without it, one box per worker. */
  #limitOf(type: 'linux' | 'android'): number {
    const n = type === 'linux' ? this.options.boxes.createLinux : this.options.boxes.createAndroid;
    return n > 0 ? n : this.#limit;
  }

  async #create(type: 'linux' | 'android'): Promise<Box> {
    return type === 'android' ? this.client.createAndroidBox({ wait: true }) : this.client.createLinuxBox({ wait: true });
  }

  /**
   * Puts back what the flows changed: resolution, scale, an Android device's state. Each part is
   * tried; what failed is thrown together (the first failure's code).
   */
  async #restore(slot: Slot): Promise<void> {
    const { state, box } = slot;
    const failed: unknown[] = [];
    const attempt = (fn: () => Promise<void>) => fn().catch((err: unknown) => void failed.push(err));
    if (state.resolutionChanged) {
      await attempt(async () => {
        if (!state.resolution) throw new BoxflowError('BOX_UNAVAILABLE', 'its resolution before the run changed it is unknown');
        await this.client.setResolution(box.id, state.resolution, { timeoutMs: 30_000 });
        state.resolutionChanged = false;
      });
    }
    if (state.scaleChanged) {
      await attempt(async () => {
        if (state.scale !== undefined) await this.client.updateSettings(box.id, { scale: state.scale }, { timeoutMs: 30_000 });
        state.scaleChanged = false;
      });
    }
    const device = state.android;
    if (device && !unchanged(device)) {
      await attempt(async () => {
        await restoreAndroid(this.client, box.id, device, 30_000);
        state.android = undefined;
      });
    } else state.android = undefined;
    if (failed.length) {
      const first = failed[0];
      throw new BoxflowError(BoxflowError.is(first) ? first.code : 'BOX_UNAVAILABLE', failed.map((e) => (e as Error).message).join('; '));
    }
  }

  /** A fresh browser for the next flow: one whose browser stays open (its cookies, storage, tabs) is not used again. */
  async #closeBrowser(slot: Slot): Promise<void> {
    try {
      await this.client.closeBrowser(slot.box.id, { timeoutMs: 15_000 });
    } catch (err) {
      throw new BoxflowError(BoxflowError.is(err) ? err.code : 'BOX_UNAVAILABLE', `its browser could not be closed (the next flow would get its cookies, storage and tabs): ${(err as Error).message}`);
    }
  }

  /** Says a warning now and keeps it for the run's result. */
  #warning(err: unknown, message: string): void {
    this.warnings.push({ code: BoxflowError.is(err) ? err.code : 'BOX_UNAVAILABLE', message });
    this.warn(message);
  }

  #add(box: BoxInfo, created: boolean): Slot {
    const slot: Slot = { box, state: { resolutionChanged: false, scaleChanged: false }, busy: false, used: false, created, dead: false };
    this.#slots.push(slot);
    this.#seen.push(box);
    return slot;
  }

  #lease(slot: Slot): Lease {
    slot.busy = true;
    return {
      box: slot.box,
      state: slot.state,
      release: (state) => {
        slot.busy = false;
        if (state === 'dead') slot.dead = true;
        this.#wake();
      },
    };
  }

  #wake(): void {
    for (const w of this.#waiters.splice(0)) w();
  }
}

function matches(box: BoxInfo, want: string | undefined): boolean {
  if (want === undefined) return true;
  if (want === 'linux' || want === 'android') return box.type === want;
  return box.id === want;
}
