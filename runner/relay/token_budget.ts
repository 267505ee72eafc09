/**
 * The token cap as a reservation ledger (issue 7, item 6: "a cap is a promise
 * about spend"): before a model call is forwarded, its largest possible
 * output is reserved against what is left of the episode's token cap, so
 * that concurrent calls cannot together spend many times the cap.
 *
 * @module
 */

/** What {@linkcode TokenBudget.admit} decided for one call. */
export type Admission =
  | { kind: "admitted"; ticket: Ticket }
  | { kind: "refused"; message: string };

/** A reservation held by an admitted call until {@linkcode TokenBudget.settle}. */
export interface Ticket {
  /** Tokens reserved for the call's output; null: the call's output is unbounded. */
  readonly reserved: number | null;
}

interface Waiter {
  bound: number | null;
  resolve: (admission: Admission) => void;
}

/**
 * The reservation ledger of one episode's token cap.
 *
 * Rule, for a call whose output is at most `bound` tokens (null: unknown),
 * with `used` the prompt + completion tokens of settled calls and `reserved`
 * the sum of the bounds of admitted calls not yet settled:
 * - refused at once when `used >= cap`, or when `bound` is known and
 *   `used + bound > cap` (the call could cross the cap even alone; `used`
 *   only grows, so waiting cannot help);
 * - held (in arrival order, behind any call already held) while another call
 *   with an unbounded output is in flight, while `used + reserved + bound >
 *   cap`, or, for an unbounded call, while any call is in flight;
 * - admitted otherwise, reserving `bound` (an unbounded call reserves
 *   everything: nothing else is admitted until it settles).
 *
 * Every settle releases the call's reservation, adds its actual usage to
 * `used` and decides the held calls again, in order.
 *
 * What this bounds: completion tokens never take the total past the cap,
 * because each admitted call's output fits in what was left. A prompt's own
 * size is unknown until the server reports it, so the recorded total can
 * still exceed the cap by the prompt tokens of the calls in flight together,
 * or, for a call with no known output bound, by that one call.
 *
 * Cost: O(1) per decision, O(held calls) per settle.
 */
export class TokenBudget {
  readonly #cap: number;
  #used = 0;
  #reserved = 0;
  #inFlight = 0;
  #unboundedInFlight = 0;
  #held: Waiter[] = [];

  /**
   * @param cap the episode's token cap (prompt + completion), a non-negative integer
   */
  constructor(cap: number) {
    this.#cap = cap;
  }

  /** Prompt + completion tokens of settled calls. */
  get used(): number {
    return this.#used;
  }

  /** Tokens reserved by admitted calls not yet settled (unbounded calls count 0 here). */
  get reserved(): number {
    return this.#reserved;
  }

  /** Calls waiting to be admitted. */
  get held(): number {
    return this.#held.length;
  }

  /**
   * Admits, holds or refuses one call (rule in the class doc).
   *
   * @param bound the call's largest possible output in tokens, or null when unknown
   * @returns the admission, once decided (at once, or when earlier calls settle)
   * @example
   * ```ts
   * import { TokenBudget } from "./token_budget.ts";
   * const budget = new TokenBudget(2000);
   * const first = await budget.admit(1000);
   * if (first.kind !== "admitted") throw new Error("1000 of 2000 fits");
   * const second = budget.admit(1500); // held: 1000 reserved + 1500 > 2000
   * budget.settle(first.ticket, 1020); // used 1020, and 1020 + 1500 > 2000
   * if ((await second).kind !== "refused") throw new Error("1500 more cannot fit");
   * ```
   */
  admit(bound: number | null): Promise<Admission> {
    const now = this.#decide(bound);
    if (now === "refuse") return Promise.resolve(this.#refusal(bound));
    if (now === "admit" && this.#held.length === 0) return Promise.resolve(this.#take(bound));
    const { promise, resolve } = Promise.withResolvers<Admission>();
    this.#held.push({ bound, resolve });
    return promise;
  }

  /**
   * Releases an admitted call's reservation and counts what it actually used.
   *
   * @param ticket the call's ticket
   * @param tokens its server-reported prompt + completion tokens (0 when unknown)
   */
  settle(ticket: Ticket, tokens: number): void {
    this.#inFlight -= 1;
    if (ticket.reserved === null) this.#unboundedInFlight -= 1;
    else this.#reserved -= ticket.reserved;
    this.#used += tokens;
    this.#drain();
  }

  /**
   * Refuses every held call with `message` (the relay is closing).
   *
   * @param message the refusal's message
   */
  refuseHeld(message: string): void {
    for (const waiter of this.#held.splice(0)) waiter.resolve({ kind: "refused", message });
  }

  #decide(bound: number | null): "admit" | "hold" | "refuse" {
    if (this.#used >= this.#cap) return "refuse";
    if (bound !== null && this.#used + bound > this.#cap) return "refuse";
    if (this.#unboundedInFlight > 0) return "hold";
    if (bound === null) return this.#inFlight > 0 ? "hold" : "admit";
    return this.#used + this.#reserved + bound > this.#cap ? "hold" : "admit";
  }

  #take(bound: number | null): Admission {
    this.#inFlight += 1;
    if (bound === null) this.#unboundedInFlight += 1;
    else this.#reserved += bound;
    return { kind: "admitted", ticket: { reserved: bound } };
  }

  #refusal(bound: number | null): Admission {
    const used = `${this.#used} tokens used of ${this.#cap} allowed`;
    return {
      kind: "refused",
      message: this.#used >= this.#cap || bound === null
        ? `Token cap reached: ${used}`
        : `Token cap reached: ${used}; the call's output cap of ${bound} could cross it`,
    };
  }

  #drain(): void {
    while (this.#held.length > 0) {
      const head = this.#held[0];
      const now = this.#decide(head.bound);
      if (now === "hold") return;
      this.#held.shift();
      head.resolve(now === "admit" ? this.#take(head.bound) : this.#refusal(head.bound));
    }
  }
}
