/**
 * Scripted agent `agent-nocall`: reads the task and exits 0 without a single
 * model call. Seed 000: a zero-call candidate is a scored failure, not an
 * invalid evaluation ("一次都没调模型就交卷 ... 这个 0 分应该记给产品").
 *
 * @module
 */
import { readTask } from "./_model.ts";

const prompt = await readTask();
console.log(JSON.stringify({ agent: "nocall", calls: 0, prompt_chars: prompt.length }));
