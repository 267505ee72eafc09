import assert from "node:assert/strict";
import { type Admission, TokenBudget } from "./token_budget.ts";

function ticketOf(admission: Admission) {
  assert.equal(admission.kind, "admitted");
  return (admission as Extract<Admission, { kind: "admitted" }>).ticket;
}

/** Whether a promise has settled after the pending microtasks ran. */
async function settled(promise: Promise<unknown>): Promise<boolean> {
  let done = false;
  promise.then(() => done = true);
  await Promise.resolve();
  await Promise.resolve();
  return done;
}

Deno.test("TokenBudget admits calls while their output caps fit what is left, then holds", async () => {
  // cap 2000, each call capped at 1000: two fit (0 + 1000 + 1000 = 2000), the third is held.
  const budget = new TokenBudget(2000);
  const first = ticketOf(await budget.admit(1000));
  const second = ticketOf(await budget.admit(1000));
  assert.equal(budget.reserved, 2000);
  const third = budget.admit(1000);
  assert.equal(await settled(third), false);
  assert.equal(budget.held, 1);
  // The first settles at 25 + 1000: used 1025, reserved 1000; 1025 + 1000 > 2000 -> refused.
  budget.settle(first, 1025);
  const decided = await third;
  assert.deepEqual(decided, {
    kind: "refused",
    message:
      "Token cap reached: 1025 tokens used of 2000 allowed; the call's output cap of 1000 could cross it",
  });
  budget.settle(second, 1025);
  assert.equal(budget.used, 2050);
  assert.equal(budget.reserved, 0);
  assert.equal((await budget.admit(1)).kind, "refused");
});

Deno.test("TokenBudget admits a held call once a settled call used less than it reserved", async () => {
  const budget = new TokenBudget(2000);
  const first = ticketOf(await budget.admit(1000));
  ticketOf(await budget.admit(1000));
  const third = budget.admit(500);
  assert.equal(await settled(third), false);
  // used 200, reserved 1000: 200 + 1000 + 500 = 1700 <= 2000 -> admitted.
  budget.settle(first, 200);
  assert.equal((await third).kind, "admitted");
  assert.equal(budget.reserved, 1500);
});

Deno.test("TokenBudget runs a call with no known output cap alone", async () => {
  const budget = new TokenBudget(100);
  const open = ticketOf(await budget.admit(null));
  const capped = budget.admit(10);
  const uncapped = budget.admit(null);
  assert.equal(await settled(capped), false);
  assert.equal(await settled(uncapped), false);
  budget.settle(open, 30);
  // In arrival order: the capped call is admitted (30 + 10 <= 100); the uncapped one
  // waits for it.
  const cappedTicket = ticketOf(await capped);
  assert.equal(await settled(uncapped), false);
  budget.settle(cappedTicket, 20);
  ticketOf(await uncapped);
  assert.equal(budget.used, 50);
});

Deno.test("TokenBudget refuses at once a call that cannot fit even alone, and everything at the cap", async () => {
  const budget = new TokenBudget(1000);
  assert.equal((await budget.admit(1001)).kind, "refused");
  const ticket = ticketOf(await budget.admit(1000));
  budget.settle(ticket, 1000);
  assert.deepEqual(await budget.admit(null), {
    kind: "refused",
    message: "Token cap reached: 1000 tokens used of 1000 allowed",
  });
});

Deno.test("TokenBudget refuseHeld() answers every held call", async () => {
  const budget = new TokenBudget(10);
  ticketOf(await budget.admit(10));
  const held = [budget.admit(5), budget.admit(null)];
  budget.refuseHeld("closing");
  assert.deepEqual(await Promise.all(held), [
    { kind: "refused", message: "closing" },
    { kind: "refused", message: "closing" },
  ]);
  assert.equal(budget.held, 0);
});
