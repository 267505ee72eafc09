import { ok, throws } from "node:assert/strict";
import { clopperPearsonInterval } from "./clopper_pearson.ts";

const TOLERANCE = 1e-10;

function close(actual: number, expected: number, what: string): void {
  ok(Math.abs(actual - expected) <= TOLERANCE, `${what}: got ${actual}, expected ${expected}`);
}

// scipy 1.17.1: scipy.stats.binomtest(k, n).proportion_ci(method="exact") -> (low, high)
const SCIPY: [number, number, number, number][] = [
  [6, 10, 0.2623780766069451, 0.8784477418801728],
  [10, 10, 0.6915028921812371, 1.0],
  [0, 10, 0.0, 0.30849710781876294],
  [1, 10, 0.0025285785444625728, 0.44501611702819543],
  [3, 4, 0.19412044968324338, 0.9936905367902901],
  [2, 4, 0.06758598648854298, 0.932414013511457],
  [0, 20, 0.0, 0.16843347098308548],
  [1, 100, 0.00025314603268189283, 0.054459385392080666],
  [50, 100, 0.39832112950330095, 0.6016788704966991],
  [999, 1000, 0.9944410757201502, 0.9999746825125083],
  [17, 30, 0.37427345060921996, 0.7453924500967393],
];

Deno.test("clopperPearsonInterval() matches scipy's exact interval", () => {
  for (const [k, n, low, high] of SCIPY) {
    const interval = clopperPearsonInterval(k, n);
    close(interval.lower, low, `${k}/${n} lower`);
    close(interval.upper, high, `${k}/${n} upper`);
  }
});

Deno.test("clopperPearsonInterval() is exact at the ends and records its level", () => {
  // 0/n: lower exactly 0, upper 1 − (α/2)^(1/n) (closed form); n/n mirrors it.
  const none = clopperPearsonInterval(0, 5);
  ok(none.lower === 0);
  close(none.upper, 1 - 0.025 ** (1 / 5), "0/5 upper");
  const all = clopperPearsonInterval(5, 5, { confidence: 0.9 });
  ok(all.upper === 1 && all.method === "clopper-pearson" && all.confidence === 0.9);
  close(all.lower, 0.05 ** (1 / 5), "5/5 lower at 90%");
});

Deno.test("clopperPearsonInterval() refuses counts and levels out of range", () => {
  throws(() => clopperPearsonInterval(1, 0), /"n" must be a positive integer/);
  throws(() => clopperPearsonInterval(3, 2), /"successes" must be an integer in \[0, 2\]/);
  throws(() => clopperPearsonInterval(1.5, 2), /"successes"/);
  throws(() => clopperPearsonInterval(1, 2, { confidence: 1 }), /"confidence" must lie in/);
});
