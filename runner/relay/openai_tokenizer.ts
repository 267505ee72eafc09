/**
 * OpenAI's own tokenizers, for the prompt bound of a model whose encoding is
 * published (tiktoken's `model_to_encoding` table, `tiktoken/model.py`, as
 * `js-tiktoken` ships it): `o200k_base` for the GPT-4o, GPT-4.1, GPT-5 and o
 * series and gpt-oss, `cl100k_base` for GPT-4 and GPT-3.5. A model of any
 * other name (an OpenAI-compatible server's, a stand-in's) has no known
 * encoding, and the relay bounds its prompts by their bytes instead.
 *
 * The rank tables are loaded once, on first use (about 0.7 s for
 * `o200k_base`), and only by a relay that meters such a model under a token
 * cap.
 *
 * @module
 */
import { Tiktoken } from "js-tiktoken/lite";

/** The encodings with a published model table. */
export type OpenAiEncoding = "o200k_base" | "cl100k_base";

/** Model name prefixes by encoding (tiktoken's `MODEL_PREFIX_TO_ENCODING` and `MODEL_TO_ENCODING`). */
const PREFIXES: readonly [RegExp, OpenAiEncoding][] = [
  [/^(gpt-4o|gpt-4\.1|gpt-4\.5|gpt-5|chatgpt-4o|o1|o3|o4|codex-|gpt-oss)/, "o200k_base"],
  [/^(gpt-4|gpt-3\.5|gpt-35)/, "cl100k_base"],
];

/**
 * The encoding of an OpenAI model, by its name (a `ft:` fine-tune by its base).
 *
 * @param model the model a request names
 * @returns the encoding, or null when no published table names it
 * @example
 * ```ts
 * import { openAiEncodingOf } from "./openai_tokenizer.ts";
 * if (openAiEncodingOf("gpt-4o-mini") !== "o200k_base") throw new Error();
 * if (openAiEncodingOf("ft:gpt-4-0613:acme::x") !== "cl100k_base") throw new Error();
 * if (openAiEncodingOf("qwen3-coder-plus") !== null) throw new Error();
 * ```
 */
export function openAiEncodingOf(model: unknown): OpenAiEncoding | null {
  if (typeof model !== "string") return null;
  const name = model.startsWith("ft:") ? model.slice(3) : model;
  return PREFIXES.find(([prefix]) => prefix.test(name))?.[1] ?? null;
}

const loaded = new Map<OpenAiEncoding, Promise<Tiktoken>>();

/** The encoder of `encoding`, its ranks imported on first use. */
function encoder(encoding: OpenAiEncoding): Promise<Tiktoken> {
  let pending = loaded.get(encoding);
  if (pending === undefined) {
    pending = (encoding === "o200k_base"
      ? import("js-tiktoken/ranks/o200k_base")
      : import("js-tiktoken/ranks/cl100k_base")).then((ranks) =>
        new Tiktoken(ranks.default)
      );
    loaded.set(encoding, pending);
  }
  return pending;
}

/**
 * Longest run of non-whitespace characters tokenized as it is. BPE's cost
 * grows with the square of a run's length (`js-tiktoken` merges within one
 * pre-token at a time: 12,500 characters of a rare script without a space
 * took over three minutes), so longer runs are bounded by their bytes.
 */
export const MAX_TOKENIZED_RUN = 256;

const LONG_RUN = new RegExp(`\\S{${MAX_TOKENIZED_RUN + 1},}`, "gu");

/**
 * An upper bound of the tokens `encoding` makes of a text, special-token
 * names taken as plain text (as the API takes them in a message), in time
 * linear in the text's length.
 *
 * Rule: the text's exact count when no run of non-whitespace characters is
 * longer than {@linkcode MAX_TOKENIZED_RUN}; otherwise each such run is taken
 * out and counted at one token per UTF-8 byte (every token is at least one
 * byte), plus 2 tokens for the cut (the whitespace on either side may then
 * tokenize apart), and the rest is counted exactly.
 *
 * @param encoding the encoding
 * @param text any text
 * @returns the count, or the bound
 * @example
 * ```ts
 * import { countOpenAiTokens } from "./openai_tokenizer.ts";
 * if (await countOpenAiTokens("o200k_base", "hello world") !== 2) throw new Error();
 * // a 1,000-character run: its 1,000 bytes, plus 2 for the cut, plus " x" alone
 * if (await countOpenAiTokens("o200k_base", `${"a".repeat(1000)} x`) !== 1003) throw new Error();
 * ```
 */
export async function countOpenAiTokens(encoding: OpenAiEncoding, text: string): Promise<number> {
  let outside = 0;
  const rest = text.replace(LONG_RUN, (run) => {
    outside += new TextEncoder().encode(run).length + 2;
    return "";
  });
  return (await encoder(encoding)).encode(rest, [], []).length + outside;
}
