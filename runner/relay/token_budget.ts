/**
 * The token cap as a ceiling (issue 7, item 6: "a cap is a promise about
 * spend"; issue 21, "The cap as a ceiling"): before a model call is
 * forwarded, an upper bound of its prompt (`prompt_token_bound.ts`) and its
 * output cap are reserved against what is left of the episode's token cap,
 * and the output cap is lowered to what is left, so that neither concurrent
 * calls nor one large call can spend past the cap.
 *
 * @module
 */

/** What one call asks of the budget. */
export interface TokenRequest {
  /** Upper bound of the call's prompt tokens. */
  promptBound: number;
  /** The output cap the call carries (after the plan's output policy); null: none. */
  outputCap: number | null;
}

/** What {@linkcode TokenBudget.admit} decided for one call. */
export type Admission =
  | { kind: "admitted"; ticket: Ticket }
  | { kind: "refused"; message: string };

/** A reservation held by an admitted call until {@linkcode TokenBudget.settle}. */
export interface Ticket {
  /** Tokens reserved: the prompt bound plus `outputCap`. */
  readonly reserved: number;
  /** The output cap to forward the call with: at most what it asked for. */
  readonly outputCap: number;
  /** True when `outputCap` is below what the call asked for (or it asked for none). */
  readonly lowered: boolean;
}

interface Waiter {
  request: TokenRequest;
  resolve: (admission: Admission) => void;
}

/**
 * The reservation ledger of one episode's token cap.
 *
 * Rule, for a call with prompt bound `p` and output cap `want` (null: none),
 * with `used` the tokens of settled calls and `reserved` the reservations of
 * admitted calls not yet settled:
 * - refused when `used + p + 1 > cap`: not even one output token is left
 *   after the prompt's bound, and `used` only grows, so waiting cannot help;
 * - admitted at once, with its own output cap, when `want` is known and
 *   `used + reserved + p + want <= cap` and no call is held before it;
 * - otherwise held, in arrival order, until no other call is in flight, and
 *   then admitted with its output cap lowered to what is left,
 *   `cap - used - p` (injected when the call had none), or refused as above.
 *
 * An admitted call reserves `p` plus its output cap. Every settle releases
 * the reservation, adds the call's server-reported usage to `used` (its whole
 * reservation when the usage is unknown: spend is never taken as 0) and
 * decides the held calls again, in order.
 *
 * What this bounds: while each call's billed prompt is at most its bound and
 * its output at most the cap it was forwarded with, the total never passes
 * the cap, whatever the concurrency. Cost: O(1) per decision, O(held calls)
 * per settle.
 */
export class TokenBudget {
  readonly #cap: number;
  #used = 0;
  #reserved = 0;
  #inFlight = 0;
  #held: Waiter[] = [];

  /**
   * @param cap the episode's token cap (prompt + completion), a non-negative integer
   */
  constructor(cap: number) {
    this.#cap = cap;
  }

  /** Tokens of settled calls (their reservations when usage was unknown). */
  get used(): number {
    return this.#used;
  }

  /** Tokens reserved by admitted calls not yet settled. */
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
   * @param request the call's prompt bound and output cap
   * @returns the admission, once decided (at once, or when earlier calls settle)
   * @example
   * ```ts
   * import { TokenBudget } from "./token_budget.ts";
   * const budget = new TokenBudget(20000);
   * // Claude Code asks for 32,000 output tokens: forwarded with what is left after its prompt.
   * const first = await budget.admit({ promptBound: 6000, outputCap: 32000 });
   * if (first.kind !== "admitted" || first.ticket.outputCap !== 14000) throw new Error();
   * ```
   */
  admit(request: TokenRequest): Promise<Admission> {
    const now = this.#decide(request, this.#held.length === 0);
    if (now === "refuse") return Promise.resolve(this.#refusal(request));
    if (now !== "hold") return Promise.resolve(this.#take(request, now));
    const { promise, resolve } = Promise.withResolvers<Admission>();
    this.#held.push({ request, resolve });
    return promise;
  }

  /**
   * Releases an admitted call's reservation and counts what it actually used.
   *
   * @param ticket the call's ticket
   * @param tokens its server-reported prompt + completion tokens; null when unknown (its
   *   whole reservation is counted)
   */
  settle(ticket: Ticket, tokens: number | null): void {
    this.#inFlight -= 1;
    this.#reserved -= ticket.reserved;
    this.#used += tokens ?? ticket.reserved;
    this.#drain();
  }

  /**
   * Releases a reservation of a call that was never forwarded (nothing spent).
   *
   * @param ticket the call's ticket
   */
  cancel(ticket: Ticket): void {
    this.settle(ticket, 0);
  }

  /**
   * Refuses every held call with `message` (the relay is closing).
   *
   * @param message the refusal's message
   */
  refuseHeld(message: string): void {
    for (const waiter of this.#held.splice(0)) waiter.resolve({ kind: "refused", message });
  }

  /** "refuse", "hold", or the output cap to admit the call with. */
  #decide(request: TokenRequest, first: boolean): "refuse" | "hold" | number {
    const { promptBound, outputCap } = request;
    const left = this.#cap - this.#used - promptBound;
    if (left < 1) return "refuse";
    if (
      first && outputCap !== null &&
      this.#used + this.#reserved + promptBound + outputCap <= this.#cap
    ) return outputCap;
    if (this.#inFlight > 0) return "hold";
    return outputCap === null ? left : Math.min(outputCap, left);
  }

  #take(request: TokenRequest, outputCap: number): Admission {
    const reserved = request.promptBound + outputCap;
    this.#inFlight += 1;
    this.#reserved += reserved;
    const lowered = request.outputCap === null || outputCap < request.outputCap;
    return { kind: "admitted", ticket: { reserved, outputCap, lowered } };
  }

  #refusal(request: TokenRequest): Admission {
    const used = `${this.#used} tokens used of ${this.#cap} allowed`;
    return {
      kind: "refused",
      message: this.#used >= this.#cap
        ? `Token cap reached: ${used}`
        : `Token cap reached: ${used}; the call's prompt may take up to ${request.promptBound} ` +
          "(its bound from the request body), which leaves no output token",
    };
  }

  #drain(): void {
    while (this.#held.length > 0) {
      const head = this.#held[0];
      const now = this.#decide(head.request, true);
      if (now === "hold") return;
      this.#held.shift();
      head.resolve(now === "refuse" ? this.#refusal(head.request) : this.#take(head.request, now));
    }
  }
}
