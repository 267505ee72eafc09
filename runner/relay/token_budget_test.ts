import assert from "node:assert/strict";
import seedrandom from "seedrandom";
import { type Admission, type Ticket, TokenBudget } from "./token_budget.ts";

function ticketOf(admission: Admission): Ticket {
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

Deno.test("TokenBudget admits calls whose prompt bound and output cap fit, then holds", async () => {
  // cap 2000: 100 + 800 twice fits (1800), a third 100 + 800 does not and is held.
  const budget = new TokenBudget(2000);
  const first = ticketOf(await budget.admit({ promptBound: 100, outputCap: 800 }));
  const second = ticketOf(await budget.admit({ promptBound: 100, outputCap: 800 }));
  assert.deepEqual(first, { reserved: 900, outputCap: 800, lowered: false });
  assert.equal(budget.reserved, 1800);
  const third = budget.admit({ promptBound: 100, outputCap: 800 });
  assert.equal(await settled(third), false);
  assert.equal(budget.held, 1);
  // The first settles at 100 + 800 = 900: still one call in flight, the third waits.
  budget.settle(first, 900);
  assert.equal(await settled(third), false);
  // The second settles at 900: used 1800, the third runs alone with 2000 - 1800 - 100 = 100.
  budget.settle(second, 900);
  assert.deepEqual(ticketOf(await third), { reserved: 200, outputCap: 100, lowered: true });
});

Deno.test("TokenBudget lowers an agent's large output cap to what is left after the prompt", async () => {
  // Claude Code asks for 32,000 output tokens; under a cap of 20,000 with a
  // 6,000-token prompt bound it is forwarded with 14,000.
  const budget = new TokenBudget(20000);
  const ticket = ticketOf(await budget.admit({ promptBound: 6000, outputCap: 32000 }));
  assert.deepEqual(ticket, { reserved: 20000, outputCap: 14000, lowered: true });
  budget.settle(ticket, 6100);
  // The next call: 20000 - 6100 - 6500 = 7400 left for its output.
  const next = ticketOf(await budget.admit({ promptBound: 6500, outputCap: 32000 }));
  assert.equal(next.outputCap, 7400);
});

Deno.test("TokenBudget gives a call without an output cap what is left, alone", async () => {
  const budget = new TokenBudget(1000);
  const capped = ticketOf(await budget.admit({ promptBound: 100, outputCap: 100 }));
  const open = budget.admit({ promptBound: 100, outputCap: null });
  assert.equal(await settled(open), false);
  budget.settle(capped, 150);
  // 1000 - 150 - 100 = 750.
  assert.deepEqual(ticketOf(await open), { reserved: 850, outputCap: 750, lowered: true });
});

Deno.test("TokenBudget refuses only when not one output token is left after the prompt bound", async () => {
  const budget = new TokenBudget(2000);
  // A 400 kB prompt under a cap of 2000: refused, whatever its max_tokens.
  assert.deepEqual(await budget.admit({ promptBound: 400_000, outputCap: 1 }), {
    kind: "refused",
    message: "Token cap reached: 0 tokens used of 2000 allowed; the call's prompt may take " +
      "up to 400000 (its bound from the request body), which leaves no output token",
  });
  // 1999 + 1 = 2000 fits exactly; 2000 + 1 does not.
  assert.equal((await budget.admit({ promptBound: 2000, outputCap: 5 })).kind, "refused");
  const last = ticketOf(await budget.admit({ promptBound: 1999, outputCap: 5 }));
  assert.equal(last.outputCap, 1);
  budget.settle(last, 2000);
  assert.deepEqual(await budget.admit({ promptBound: 1, outputCap: 1 }), {
    kind: "refused",
    message: "Token cap reached: 2000 tokens used of 2000 allowed",
  });
});

Deno.test("TokenBudget counts a call whose usage never came as its whole reservation", async () => {
  const budget = new TokenBudget(5000);
  const ticket = ticketOf(await budget.admit({ promptBound: 1000, outputCap: 2000 }));
  budget.settle(ticket, null);
  assert.equal(budget.used, 3000);
  assert.equal(budget.reserved, 0);
});

Deno.test("TokenBudget.cancel() releases a reservation without spend", async () => {
  const budget = new TokenBudget(5000);
  budget.cancel(ticketOf(await budget.admit({ promptBound: 1000, outputCap: 2000 })));
  assert.equal(budget.used, 0);
  assert.equal(budget.reserved, 0);
});

Deno.test("TokenBudget.refuseHeld() refuses every held call", async () => {
  const budget = new TokenBudget(1000);
  ticketOf(await budget.admit({ promptBound: 100, outputCap: 800 }));
  const held = budget.admit({ promptBound: 100, outputCap: 800 });
  budget.refuseHeld("closing");
  assert.deepEqual(await held, { kind: "refused", message: "closing" });
});

Deno.test("TokenBudget never lets calls spend past the cap when each stays within its reservation", async () => {
  // 2000 random calls in random interleavings (seeded); each spends at most
  // its prompt bound plus the output cap it was given. The total never passes the cap.
  const random = seedrandom("token-budget-ceiling");
  for (let round = 0; round < 20; round += 1) {
    const cap = 500 + Math.floor(random() * 20000);
    const budget = new TokenBudget(cap);
    const inFlight: Promise<void>[] = [];
    let spent = 0;
    for (let call = 0; call < 100; call += 1) {
      const promptBound = 1 + Math.floor(random() * cap * 0.3);
      const outputCap = random() < 0.2 ? null : Math.floor(random() * cap);
      inFlight.push(
        budget.admit({ promptBound, outputCap }).then(async (admission) => {
          if (admission.kind === "refused") return;
          await new Promise((done) => setTimeout(done, Math.floor(random() * 3)));
          const tokens = Math.floor(random() * (promptBound + 1)) +
            Math.floor(random() * (admission.ticket.outputCap + 1));
          spent += tokens;
          budget.settle(admission.ticket, tokens);
        }),
      );
    }
    await Promise.all(inFlight);
    assert.ok(spent <= cap, `round ${round}: spent ${spent} of ${cap}`);
    assert.equal(budget.used, spent);
  }
});
