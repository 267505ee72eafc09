/**
 * Provider capabilities in a model call, denied unless the plan allows them
 * by name (issue 21, "Provider capabilities are denied by default"): work the
 * provider does outside the metered model call — hosted and server tools,
 * state it stores or reads back, and URLs it fetches. Each
 * is a way to the internet, or spend outside the token count, that the
 * relay cannot see; a plan names the ones it allows
 * (`freeze --allow-provider-feature web_search`).
 *
 * This module is pure: {@linkcode providerFeaturesOf} lists every use a
 * request makes, {@linkcode requestChanges} is the one change the relay makes
 * to a request (Responses `store: false` when the agent left `store` unset),
 * {@linkcode deniedUses} keeps the uses a plan does not allow and
 * {@linkcode refusalMessage} words the refusal. The relay applies them in
 * that order:
 *
 * ```ts ignore
 * const forwarded = requestChanges(api, body, { allowed }) ?? body;
 * const denied = deniedUses(providerFeaturesOf(api, forwarded, headers), allowed);
 * if (denied.length > 0) refuse(refusalMessage(denied));
 * ```
 *
 * Sources: OpenAI API reference, "Chat Completions"
 * (https://platform.openai.com/docs/api-reference/chat/create) and
 * "Responses" (https://platform.openai.com/docs/api-reference/responses/create),
 * with the `openai` SDK's `resources/responses/responses.ts` (`Tool`,
 * `ResponseInputItem`) and `resources/chat/completions`; Anthropic API
 * reference, "Messages" (https://docs.anthropic.com/en/api/messages) and
 * "Beta headers" (https://docs.anthropic.com/en/api/beta-headers), with the
 * `@anthropic-ai/sdk` SDK's `resources/beta/messages/messages.ts`
 * (`BetaToolUnion`, `BetaClientToolUnion`, `BetaContentBlockParam`,
 * `MessageCreateParamsBase`) and `resources/beta/beta.ts` (`AnthropicBeta`);
 * Gemini API reference, "Generating content" (https://ai.google.dev/api/generate-content)
 * and "Caching" (https://ai.google.dev/api/caching), with the `@google/genai` SDK's `Tool`.
 *
 * Rules for untrusted shapes (the body is whatever the agent sent):
 * - Nothing throws on a body: a field of the wrong type is skipped unless
 *   its mere presence asks for a feature (then it is a use), and the
 *   provider refuses what is malformed.
 * - Tools are denied by default: a tool whose `type` is a known client tool
 *   (run by the agent) is clean, a known hosted type is its feature, and any
 *   other type is {@linkcode UNKNOWN_TOOL}, which no plan can allow (this
 *   module must learn what it does first). A tool without a `type` is the
 *   client's: every hosted tool is named by its type.
 * - A URL position is a use of `remote_urls` unless its value starts with
 *   `data:` (inline bytes the provider does not fetch). Only documented URL
 *   positions are read: a URL in text, in a tool call's arguments or in an
 *   echoed search result is not fetched by the provider.
 * - Top-level fields are read by name (each API's list below); other fields
 *   are parameters of the model call and pass.
 * - Order: tools, then top-level fields in a fixed order, then the
 *   conversation in order, then headers; the same body always gives the
 *   same list.
 *
 * @module
 */
import { ProviderFeature } from "../../analysis/schema/records.ts";
import { isRecord, type ModelApi } from "./api/model_api.ts";

export { ProviderFeature };

/**
 * The provider features a plan may allow, by name (closed list):
 *
 * - `web_search`: the provider searches the web. Responses tools
 *   `web_search`, `web_search_2025_08_26`, `web_search_preview`,
 *   `web_search_preview_2025_03_11` (also with `external_web_access: false`:
 *   the cached index is still a hosted, separately billed search); Chat
 *   `web_search_options` and a Chat tool of a `web_search*` type; the
 *   OpenAI-compatible switches DashScope `enable_search`, xAI
 *   `search_parameters` and OpenRouter `plugins` entry `web`; Messages
 *   `web_search_*` tools; beta `web-search-*`.
 * - `web_fetch`: the provider fetches URLs the model picks. Messages
 *   `web_fetch_*` tools; beta `web-fetch-*`.
 * - `file_search`: the provider searches its stored vector stores.
 *   Responses tool `file_search`.
 * - `code_execution`: the provider runs model-written code in a hosted
 *   container. One name for both vendors (OpenAI calls it "code
 *   interpreter", Anthropic "code execution"; the risk and the spend are
 *   alike): Responses tools `code_interpreter`, `programmatic_tool_calling`
 *   and `shell` with a hosted `environment` (`container_auto`,
 *   `container_reference`); Messages `code_execution_*` tools and
 *   `container` (the code execution sandbox, reused across requests); beta
 *   `code-execution-*`.
 * - `image_generation`: a hosted image model, billed apart. Responses tool
 *   `image_generation`.
 * - `mcp`: the provider connects to a remote MCP server. Responses tool
 *   `mcp` (`server_url` or a `connector_id`); Messages `mcp_servers` and
 *   `mcp_toolset` tools; betas `mcp-client-*`, `mcp-tunnels-*`.
 * - `tool_search`: the provider searches the request's deferred tools.
 *   Responses `tool_search` (unless `execution: "client"`); Messages
 *   `tool_search_tool_*`.
 * - `advisor`: a second model consulted at the provider. Messages
 *   `advisor_*` tools; beta `advisor-tool-*`.
 * - `skills`: provider-hosted skill bundles loaded into the container.
 *   Messages `container.skills`; beta `skills-*`.
 * - `stored_state`: state the provider stores or reads back by id, so a
 *   call depends on (or leaves) something outside the request. Responses
 *   `store` other than `false` (absent `store` means stored; see
 *   {@linkcode requestChanges}), `previous_response_id`, `conversation`, a
 *   stored `prompt`, `item_reference` input items, reasoning items without
 *   `encrypted_content` (resolved by id), `file_id` of `input_image`,
 *   `input_file` and screenshots; Chat `store: true`, `file.file_id`,
 *   assistant `audio.id`; Messages `source.type: "file"` (`file_id`),
 *   `container_upload`, `thread`; betas `files-api-*`, `message-threads-*`.
 * - `remote_urls`: any URL the provider would fetch (data: URLs are
 *   inline and always allowed). Chat parts `image_url`, `video_url`,
 *   `audio_url` (the last two OpenAI-compatible servers' extensions),
 *   `file.file_url`; Responses `input_image.image_url`,
 *   `input_file.file_url`, screenshot `image_url` (in messages, tool
 *   outputs and `prompt.variables`); Messages image and document
 *   `source.url` at any depth (tool results, document content).
 *
 * Gemini (Gemini API reference, `Tool`, `Part.fileData`,
 * `GenerateContentRequest.cachedContent`): tools `googleSearch`,
 * `googleSearchRetrieval`, `enterpriseWebSearch`, `googleMaps`, `exaAiSearch`
 * and `parallelAiSearch` are `web_search` (grounding in a search the
 * provider runs), `urlContext` `web_fetch`, `codeExecution`
 * `code_execution`, `fileSearch` `file_search`, `mcpServers` `mcp`;
 * `cachedContent` is `stored_state`, and so is a `fileData.fileUri` of the
 * Files API; any other `fileUri` is `remote_urls`. Member names match
 * however they are cased or underscored, as the REST API reads them.
 * `functionDeclarations` and `computerUse` are run by the agent; any other
 * tool member (Vertex's `retrieval` among them) is {@linkcode UNKNOWN_TOOL}.
 *
 * Not provider features: computer use (Responses `computer`,
 * `computer_use_preview`, Messages `computer_*`, `computer_toolset_*`,
 * `browser_toolset_*`), `local_shell`, `apply_patch`, `memory_*`, `bash_*`
 * and `text_editor_*` tools are run by the agent, which gets a tool call to
 * execute; and history blocks of hosted tools (`server_tool_use`,
 * `web_search_tool_result`, ...) sent back as context do not run them.
 */
export const PROVIDER_FEATURES: readonly ProviderFeature[] = ProviderFeature.options;

/**
 * The feature of a tool whose type this module does not know: denied
 * whatever the plan allows, since no one has said what it does.
 */
export const UNKNOWN_TOOL = "unknown_tool";

/** One use of a provider feature in a request. */
export interface FeatureUse {
  /** The feature used, or {@linkcode UNKNOWN_TOOL}. */
  feature: ProviderFeature | typeof UNKNOWN_TOOL;
  /**
   * Where: a JSON-path-like location and its value, e.g.
   * `tools[2].type "web_search_preview"`,
   * `messages[0].content[1].image_url.url "https://x.example/a.png"`,
   * `header anthropic-beta "mcp-client-2025-04-04"`.
   */
  where: string;
}

/**
 * True for a name a plan may allow.
 *
 * @param name e.g. a `--allow-provider-feature` value
 * @returns whether it is one of {@linkcode PROVIDER_FEATURES}
 * @example
 * ```ts
 * import { isProviderFeature } from "./provider_features.ts";
 * if (!isProviderFeature("web_search") || isProviderFeature("unknown_tool")) throw new Error();
 * ```
 */
export function isProviderFeature(name: string): name is ProviderFeature {
  return (PROVIDER_FEATURES as readonly string[]).includes(name);
}

// ---------------------------------------------------------------------------
// Shared helpers

/** Longest value text quoted in a `where`, and longest path (its middle is cut). */
const MAX_QUOTED = 120;
const MAX_PATH = 200;

/**
 * `path "value"`, the value JSON-quoted and cut to {@linkcode MAX_QUOTED}
 * characters, a path longer than {@linkcode MAX_PATH} cut in its middle.
 */
function at(path: string, value: unknown): string {
  let text = JSON.stringify(value) ?? String(value);
  if (text.length > MAX_QUOTED) text = `${text.slice(0, MAX_QUOTED - 1)}…`;
  const half = MAX_PATH / 2;
  const where = path.length > MAX_PATH ? `${path.slice(0, half)}…${path.slice(-half + 1)}` : path;
  return `${where} ${text}`;
}

/** Absent or null: a field the request does not use. */
function unset(value: unknown): boolean {
  return value === undefined || value === null;
}

/** A URL the provider fetches: any string not starting with `data:`. */
function isRemoteUrl(value: unknown): value is string {
  return typeof value === "string" && !/^data:/i.test(value);
}

function records(value: unknown): [number, Record<string, unknown>][] {
  if (!Array.isArray(value)) return [];
  const out: [number, Record<string, unknown>][] = [];
  value.forEach((item, i) => {
    if (isRecord(item)) out.push([i, item]);
  });
  return out;
}

class Uses {
  readonly list: FeatureUse[] = [];
  add(feature: FeatureUse["feature"], where: string): void {
    this.list.push({ feature, where });
  }
  /** A URL position: a use of `remote_urls` unless unset or a data: URL. */
  url(path: string, value: unknown): void {
    if (isRemoteUrl(value)) this.add("remote_urls", at(path, value));
  }
  /** A stored file's id: a use of `stored_state` when a string. */
  fileId(path: string, value: unknown): void {
    if (typeof value === "string") this.add("stored_state", at(path, value));
  }
}

/**
 * One API's tool rule: adds the tool's use, if any, and answers whether it
 * knew the type (false: {@linkcode UNKNOWN_TOOL}).
 */
type ToolRule = (type: string, tool: Record<string, unknown>, path: string, uses: Uses) => boolean;

/**
 * Classifies each tool of `tools`: a type-less tool is the client's, a type
 * the rule knows is clean or its feature, any other is {@linkcode UNKNOWN_TOOL}.
 */
function classifyTools(tools: unknown, path: string, uses: Uses, classify: ToolRule): void {
  for (const [i, tool] of records(tools)) {
    const here = `${path}[${i}]`;
    const type = tool.type;
    if (unset(type)) continue;
    if (typeof type !== "string" || !classify(type, tool, here, uses)) {
      uses.add(UNKNOWN_TOOL, at(`${here}.type`, type));
    }
  }
}

// ---------------------------------------------------------------------------
// Chat Completions

/** Chat tool types run by the agent (OpenAI reference: `function`, `custom`). */
const CHAT_CLIENT_TOOLS = new Set(["function", "custom"]);

const chatTool: ToolRule = (type, _tool, here, uses) => {
  if (CHAT_CLIENT_TOOLS.has(type)) return true;
  if (type.startsWith("web_search")) {
    uses.add("web_search", at(`${here}.type`, type));
    return true;
  }
  return false;
};

/** Chat content part keys whose value is a URL, or an object with `url`. */
const CHAT_URL_PARTS = ["image_url", "video_url", "audio_url"] as const;

function chatFeatures(body: Record<string, unknown>, uses: Uses): void {
  classifyTools(body.tools, "tools", uses, chatTool);
  if (!unset(body.web_search_options)) {
    uses.add("web_search", at("web_search_options", body.web_search_options));
  }
  // OpenAI-compatible servers' own search switches (DashScope, xAI, OpenRouter).
  if (!unset(body.enable_search) && body.enable_search !== false) {
    uses.add("web_search", at("enable_search", body.enable_search));
  }
  if (isRecord(body.search_parameters) && body.search_parameters.mode !== "off") {
    uses.add("web_search", at("search_parameters.mode", body.search_parameters.mode ?? "auto"));
  }
  for (const [i, plugin] of records(body.plugins)) {
    if (plugin.id === "web") uses.add("web_search", at(`plugins[${i}].id`, plugin.id));
  }
  if (!unset(body.store) && body.store !== false) uses.add("stored_state", at("store", body.store));
  for (const [m, message] of records(body.messages)) {
    const here = `messages[${m}]`;
    if (isRecord(message.audio)) uses.fileId(`${here}.audio.id`, message.audio.id);
    for (const [p, part] of records(message.content)) {
      const partPath = `${here}.content[${p}]`;
      for (const key of CHAT_URL_PARTS) {
        const value = part[key];
        if (isRecord(value)) uses.url(`${partPath}.${key}.url`, value.url);
        else uses.url(`${partPath}.${key}`, value);
      }
      if (isRecord(part.file)) {
        uses.fileId(`${partPath}.file.file_id`, part.file.file_id);
        uses.url(`${partPath}.file.file_url`, part.file.file_url);
      }
    }
  }
}

// ---------------------------------------------------------------------------
// Responses

/** Responses hosted tool types and their features (the SDK's `Tool` union). */
const RESPONSES_HOSTED: Record<string, ProviderFeature> = {
  web_search: "web_search",
  web_search_2025_08_26: "web_search",
  web_search_preview: "web_search",
  web_search_preview_2025_03_11: "web_search",
  file_search: "file_search",
  code_interpreter: "code_execution",
  programmatic_tool_calling: "code_execution",
  image_generation: "image_generation",
  mcp: "mcp",
};

/** Responses tool types the agent runs (the SDK's `Tool` union). */
const RESPONSES_CLIENT_TOOLS = new Set([
  "function",
  "custom",
  "computer",
  "computer_use_preview",
  "local_shell",
  "apply_patch",
]);

const responsesTool: ToolRule = (type, tool, here, uses) => {
  if (RESPONSES_CLIENT_TOOLS.has(type)) return true;
  if (type === "namespace") {
    // A namespace groups function and custom tools; its members are classified too.
    classifyTools(tool.tools, `${here}.tools`, uses, responsesTool);
    return true;
  }
  if (type === "shell") {
    // `environment` absent or `local`: the agent's shell; a container is hosted.
    const environment = tool.environment;
    if (unset(environment) || (isRecord(environment) && environment.type === "local")) {
      return true;
    }
    const kind = isRecord(environment) ? environment.type : environment;
    uses.add("code_execution", at(`${here}.environment.type`, kind));
    return true;
  }
  if (type === "tool_search") {
    if (tool.execution !== "client") {
      uses.add("tool_search", at(`${here}.execution`, tool.execution ?? "server"));
    }
    return true;
  }
  const feature = RESPONSES_HOSTED[type];
  if (feature === undefined) return false;
  if (feature === "mcp" && typeof tool.server_url === "string") {
    uses.add("mcp", at(`${here}.server_url`, tool.server_url));
  } else {
    uses.add(feature, at(`${here}.type`, type));
  }
  return true;
};

/**
 * The URL and file-id positions of one Responses content part
 * (`input_image.image_url` / `file_id`, `input_file.file_url` / `file_id`,
 * `computer_screenshot.image_url` / `file_id`), read by key whatever the
 * part's type. `file_data` is the file's bytes and passes.
 */
function responsesPart(part: Record<string, unknown>, path: string, uses: Uses): void {
  const image = part.image_url;
  if (isRecord(image)) uses.url(`${path}.image_url.url`, image.url);
  else uses.url(`${path}.image_url`, image);
  uses.url(`${path}.file_url`, part.file_url);
  uses.fileId(`${path}.file_id`, part.file_id);
}

function responsesParts(value: unknown, path: string, uses: Uses): void {
  if (isRecord(value)) responsesPart(value, path, uses);
  for (const [i, part] of records(value)) responsesPart(part, `${path}[${i}]`, uses);
}

function responsesFeatures(body: Record<string, unknown>, uses: Uses): void {
  classifyTools(body.tools, "tools", uses, responsesTool);
  if (body.store !== false) {
    uses.add(
      "stored_state",
      body.store === undefined
        ? "store (absent: Responses stores by default)"
        : at("store", body.store),
    );
  }
  for (const field of ["previous_response_id", "conversation"] as const) {
    if (!unset(body[field])) uses.add("stored_state", at(field, body[field]));
  }
  const prompt = body.prompt;
  if (!unset(prompt)) {
    uses.add("stored_state", at("prompt.id", isRecord(prompt) ? prompt.id : prompt));
    if (isRecord(prompt) && isRecord(prompt.variables)) {
      for (const name of Object.keys(prompt.variables).sort()) {
        responsesParts(prompt.variables[name], `prompt.variables.${name}`, uses);
      }
    }
  }
  for (const [i, item] of records(body.input)) {
    const here = `input[${i}]`;
    const type = item.type;
    if (type === "item_reference" || (unset(type) && unset(item.role) && !unset(item.id))) {
      uses.add("stored_state", at(`${here}.id`, item.id));
      continue;
    }
    if (type === "reasoning" && typeof item.encrypted_content !== "string" && !unset(item.id)) {
      uses.add("stored_state", at(`${here}.id`, item.id));
    }
    if (type === "additional_tools" || type === "tool_search_output") {
      classifyTools(item.tools, `${here}.tools`, uses, responsesTool);
    }
    responsesParts(item.content, `${here}.content`, uses);
    responsesParts(item.output, `${here}.output`, uses);
  }
}

// ---------------------------------------------------------------------------
// Messages

/**
 * Messages tool types the agent runs: the SDK's `BetaClientToolUnion`
 * (a type-less or `custom` tool is the client's too). Exact names: a new
 * version of a client tool is {@linkcode UNKNOWN_TOOL} until listed here.
 */
const MESSAGES_CLIENT_TOOLS = new Set([
  "custom",
  "bash_20241022",
  "bash_20250124",
  "browser_toolset_20260801",
  "computer_20241022",
  "computer_20250124",
  "computer_20251124",
  "computer_toolset_20260801",
  "memory_20250818",
  "text_editor_20241022",
  "text_editor_20250124",
  "text_editor_20250429",
  "text_editor_20250728",
]);

/**
 * Messages server tool families (type prefixes; each version is dated,
 * e.g. `web_search_20250305`) and their features.
 */
const MESSAGES_HOSTED: readonly [string, ProviderFeature][] = [
  ["web_search_", "web_search"],
  ["web_fetch_", "web_fetch"],
  ["code_execution_", "code_execution"],
  ["tool_search_tool_", "tool_search"],
  ["advisor_", "advisor"],
];

const messagesTool: ToolRule = (type, _tool, here, uses) => {
  if (MESSAGES_CLIENT_TOOLS.has(type)) return true;
  if (type === "mcp_toolset") {
    uses.add("mcp", at(`${here}.type`, type));
    return true;
  }
  const hosted = MESSAGES_HOSTED.find(([prefix]) => type.startsWith(prefix));
  if (hosted === undefined) return false;
  uses.add(hosted[1], at(`${here}.type`, type));
  return true;
};

/**
 * Beta header values (prefixes; each is dated, e.g. `mcp-client-2025-04-04`)
 * that enable a provider feature, from the SDK's `AnthropicBeta`. Other
 * betas (`claude-code-*`, `interleaved-thinking-*`,
 * `fine-grained-tool-streaming-*`, `context-1m-*`, `computer-use-*`, ...)
 * change how the model call behaves, not what the provider does beside it.
 */
const FEATURE_BETAS: readonly [string, ProviderFeature][] = [
  ["web-search-", "web_search"],
  ["web-fetch-", "web_fetch"],
  ["code-execution-", "code_execution"],
  ["mcp-client-", "mcp"],
  ["mcp-tunnels-", "mcp"],
  ["advisor-tool-", "advisor"],
  ["skills-", "skills"],
  ["files-api-", "stored_state"],
  ["message-threads-", "stored_state"],
];

function betaFeature(value: string): ProviderFeature | null {
  const found = FEATURE_BETAS.find(([prefix]) => value.toLowerCase().startsWith(prefix));
  return found === undefined ? null : found[1];
}

/**
 * Every content block of a Messages conversation, depth-first in order:
 * `source.url` (image, document) is a URL position, `source.file_id` and
 * `file_id` (`container_upload`) a stored file; a block's `content` array
 * (`tool_result`, `mcp_tool_result`, ...) and a document's `source.content`
 * hold nested blocks; a `tool_addition` block's tool definition and a
 * `compaction` block's `tool_changes` definitions are tools.
 */
function messagesBlocks(blocks: unknown, path: string, uses: Uses): void {
  const stack: [Record<string, unknown>, string][] = records(blocks)
    .map(([i, block]) => [block, `${path}[${i}]`] as [Record<string, unknown>, string])
    .reverse();
  for (let next = stack.pop(); next !== undefined; next = stack.pop()) {
    const [block, here] = next;
    const nested: [Record<string, unknown>, string][] = [];
    const source = block.source;
    if (isRecord(source)) {
      uses.url(`${here}.source.url`, source.url);
      uses.fileId(`${here}.source.file_id`, source.file_id);
      for (const [i, inner] of records(source.content)) {
        nested.push([inner, `${here}.source.content[${i}]`]);
      }
    }
    uses.fileId(`${here}.file_id`, block.file_id);
    if (block.type === "tool_addition" && isRecord(block.tool)) {
      toolDefinition(block.tool, `${here}.tool`, uses);
    }
    for (const [i, change] of records(block.tool_changes)) {
      toolDefinition(change, `${here}.tool_changes[${i}]`, uses);
    }
    for (const [i, inner] of records(block.content)) nested.push([inner, `${here}.content[${i}]`]);
    for (let i = nested.length - 1; i >= 0; i -= 1) stack.push(nested[i]);
  }
}

/** A `tool_definition` tool change: its `definition` is a tool. */
function toolDefinition(change: Record<string, unknown>, path: string, uses: Uses): void {
  if (change.type === "tool_definition") {
    classifyTools([change.definition], `${path}.definition`, uses, messagesTool);
  }
}

function messagesFeatures(body: Record<string, unknown>, headers: Headers, uses: Uses): void {
  classifyTools(body.tools, "tools", uses, messagesTool);
  if (Array.isArray(body.mcp_servers)) {
    body.mcp_servers.forEach((server, i) => {
      const url = isRecord(server) ? server.url : server;
      uses.add("mcp", at(`mcp_servers[${i}].url`, url));
    });
  } else if (!unset(body.mcp_servers)) {
    uses.add("mcp", at("mcp_servers", body.mcp_servers));
  }
  const container = body.container;
  if (!unset(container)) {
    uses.add(
      "code_execution",
      at("container", isRecord(container) ? container.id ?? {} : container),
    );
    if (isRecord(container)) {
      for (const [i, skill] of records(container.skills)) {
        uses.add("skills", at(`container.skills[${i}].skill_id`, skill.skill_id));
      }
    }
  }
  if (!unset(body.thread)) uses.add("stored_state", at("thread", body.thread));
  for (const field of ["anthropic_beta", "betas"] as const) {
    const values = body[field];
    if (!Array.isArray(values)) continue;
    values.forEach((value, i) => {
      const feature = typeof value === "string" ? betaFeature(value) : null;
      if (feature !== null) uses.add(feature, at(`${field}[${i}]`, value));
    });
  }
  messagesBlocks(body.system, "system", uses);
  for (const [i, message] of records(body.messages)) {
    messagesBlocks(message.content, `messages[${i}].content`, uses);
  }
  for (const value of (headers.get("anthropic-beta") ?? "").split(",")) {
    const beta = value.trim();
    const feature = betaFeature(beta);
    if (feature !== null) uses.add(feature, at("header anthropic-beta", beta));
  }
}

// ---------------------------------------------------------------------------
// Gemini

/**
 * Gemini tool members by name, lower-cased without underscores (the REST API
 * reads `googleSearch` and `google_search` alike): the feature each uses,
 * or null for a tool the agent runs (Gemini API reference, `Tool`).
 */
const GEMINI_TOOLS: Record<string, ProviderFeature | null> = {
  functiondeclarations: null,
  computeruse: null,
  googlesearch: "web_search",
  googlesearchretrieval: "web_search",
  enterprisewebsearch: "web_search",
  googlemaps: "web_search",
  exaaisearch: "web_search",
  parallelaisearch: "web_search",
  urlcontext: "web_fetch",
  mcpservers: "mcp",
  codeexecution: "code_execution",
  filesearch: "file_search",
};

/** A member name lower-cased without underscores, as Gemini's JSON reader matches it. */
function geminiName(key: string): string {
  return key.replaceAll("_", "").toLowerCase();
}

/** The Files API: a `fileUri` there is a file the provider stores. */
const GEMINI_FILES = /^https:\/\/generativelanguage\.googleapis\.com\/[^/]+\/files\//;

/**
 * `fileData` parts at any depth of `value` (contents, the system
 * instruction, a function response's parts): a Files API URI is
 * `stored_state`, any other URI a `remote_urls` use (the provider fetches it).
 */
function geminiFileData(value: unknown, path: string, uses: Uses): void {
  if (Array.isArray(value)) {
    value.forEach((item, i) => geminiFileData(item, `${path}[${i}]`, uses));
    return;
  }
  if (!isRecord(value)) return;
  for (const [key, member] of Object.entries(value)) {
    const here = `${path}.${key}`;
    if (geminiName(key) === "filedata" && isRecord(member)) {
      for (const [field, uri] of Object.entries(member)) {
        if (geminiName(field) !== "fileuri" || typeof uri !== "string") continue;
        if (GEMINI_FILES.test(uri)) uses.add("stored_state", at(`${here}.${field}`, uri));
        else uses.url(`${here}.${field}`, uri);
      }
    } else {
      geminiFileData(member, here, uses);
    }
  }
}

function geminiFeatures(body: Record<string, unknown>, uses: Uses): void {
  for (const [i, tool] of records(body.tools)) {
    for (const [key, value] of Object.entries(tool)) {
      const name = geminiName(key);
      if (!Object.hasOwn(GEMINI_TOOLS, name)) {
        uses.add(UNKNOWN_TOOL, at(`tools[${i}].${key}`, value));
      } else if (GEMINI_TOOLS[name] !== null) {
        uses.add(GEMINI_TOOLS[name]!, at(`tools[${i}].${key}`, value));
      }
    }
  }
  if (!unset(body.cachedContent)) uses.add("stored_state", at("cachedContent", body.cachedContent));
  geminiFileData(body.systemInstruction, "systemInstruction", uses);
  geminiFileData(body.contents, "contents", uses);
}

// ---------------------------------------------------------------------------
// Public functions

type ApiName = "Chat Completions" | "Responses" | "Messages" | "Gemini";

function apiName(api: ModelApi | string): ApiName {
  const name = typeof api === "string" ? api : api.name;
  if (
    name === "Chat Completions" || name === "Responses" || name === "Messages" ||
    name === "Gemini"
  ) {
    return name;
  }
  throw new Error(`Cannot read provider features of API "${name}": no rules for it`);
}

/**
 * Every use of a provider feature a request makes, in a fixed order (tools,
 * top-level fields, the conversation, headers). Rules per API are in
 * {@linkcode PROVIDER_FEATURES} and the module doc; odd shapes never throw.
 *
 * Read the request as it will be forwarded, after {@linkcode requestChanges}:
 * a Responses request without `store` is a use of `stored_state` until then.
 *
 * @param api the request's model API, or its `name` (`Chat Completions`, `Responses`, `Messages`,
 *   `Gemini`)
 * @param body the request body
 * @param headers the agent's request headers (Messages reads `anthropic-beta`)
 * @returns the uses found, possibly none
 * @throws {Error} for an API name this module has no rules for (a programming error)
 * @example
 * ```ts
 * import { providerFeaturesOf } from "./provider_features.ts";
 * const uses = providerFeaturesOf("Responses", {
 *   model: "m",
 *   store: false,
 *   tools: [{ type: "function", name: "sh" }, { type: "web_search_preview" }],
 *   input: [{ role: "user", content: [
 *     { type: "input_image", image_url: "data:image/png;base64,AAAA" },
 *     { type: "input_image", image_url: "https://x.example/a.png?leak=k" },
 *   ] }],
 * });
 * if (uses.length !== 2 || uses[0].where !== 'tools[1].type "web_search_preview"') throw new Error();
 * if (uses[1].where !== 'input[0].content[1].image_url "https://x.example/a.png?leak=k"') throw new Error();
 * ```
 */
export function providerFeaturesOf(
  api: ModelApi | string,
  body: Record<string, unknown>,
  headers: Headers = new Headers(),
): FeatureUse[] {
  const name = apiName(api);
  const uses = new Uses();
  if (!isRecord(body)) return uses.list;
  if (name === "Chat Completions") chatFeatures(body, uses);
  else if (name === "Responses") responsesFeatures(body, uses);
  else if (name === "Messages") messagesFeatures(body, headers, uses);
  else geminiFeatures(body, uses);
  return uses.list;
}

/**
 * The one change the relay makes for provider features: a Responses request
 * without `store` (or with `store: null`) gets `store: false`, since
 * Responses stores every response unless told not to (OpenAI reference,
 * Responses `store`: "Whether to store the generated model response for
 * later retrieval via API", default true). Agents rarely depend on it
 * (Codex sends `store: false` itself); one that did would get the
 * provider's error on a later `previous_response_id`, which is refused as
 * `stored_state` first anyway. When the plan allows `stored_state` the
 * request goes as it is.
 *
 * @param api the request's model API, or its name
 * @param body the request body
 * @param options `allowed`: the features the plan allows
 * @returns the body to forward, or null when it goes unchanged
 * @throws {Error} for an API name this module has no rules for
 * @example
 * ```ts
 * import { requestChanges } from "./provider_features.ts";
 * if (requestChanges("Responses", { input: "x" })?.store !== false) throw new Error();
 * if (requestChanges("Responses", { input: "x" }, { allowed: ["stored_state"] }) !== null) throw new Error();
 * if (requestChanges("Messages", { messages: [] }) !== null) throw new Error();
 * ```
 */
export function requestChanges(
  api: ModelApi | string,
  body: Record<string, unknown>,
  options: { allowed?: readonly string[] } = {},
): Record<string, unknown> | null {
  if (apiName(api) !== "Responses" || !isRecord(body)) return null;
  if (options.allowed?.includes("stored_state")) return null;
  if (!unset(body.store)) return null;
  return { ...body, store: false };
}

/**
 * The uses a plan does not allow: every use whose feature is not in
 * `allowed`, and every {@linkcode UNKNOWN_TOOL} whatever `allowed` says.
 *
 * @param uses from {@linkcode providerFeaturesOf}
 * @param allowed the plan's allowed features
 * @returns the denied uses, in order
 * @example
 * ```ts
 * import { deniedUses } from "./provider_features.ts";
 * const uses = [
 *   { feature: "web_search" as const, where: 'tools[0].type "web_search"' },
 *   { feature: "unknown_tool" as const, where: 'tools[1].type "x"' },
 * ];
 * if (deniedUses(uses, ["web_search", "unknown_tool"]).length !== 1) throw new Error();
 * ```
 */
export function deniedUses(
  uses: readonly FeatureUse[],
  allowed: readonly string[],
): FeatureUse[] {
  return uses.filter((use) => use.feature === UNKNOWN_TOOL || !allowed.includes(use.feature));
}

/**
 * The refusal for denied uses, worded for the agent's error and the
 * episode log: the first use, how to allow it, and the other denied
 * features by name.
 *
 * @param denied the denied uses (from {@linkcode deniedUses}); at least one
 * @returns the message
 * @throws {Error} when `denied` is empty
 * @example
 * ```ts
 * import { refusalMessage } from "./provider_features.ts";
 * const message = refusalMessage([{ feature: "web_search", where: 'tools[0].type "web_search"' }]);
 * if (message !== 'Provider feature not allowed: "web_search" at tools[0].type "web_search"; ' +
 *   "allow it with freeze --allow-provider-feature web_search") throw new Error(message);
 * ```
 */
export function refusalMessage(denied: readonly FeatureUse[]): string {
  if (denied.length === 0) throw new Error("Cannot word a refusal: no denied use");
  const [first] = denied;
  const head = first.feature === UNKNOWN_TOOL
    ? `Provider tool not known: ${first.where} is neither a client tool nor a provider ` +
      "feature ledgerbench knows, so no plan can allow it"
    : `Provider feature not allowed: "${first.feature}" at ${first.where}; ` +
      `allow it with freeze --allow-provider-feature ${first.feature}`;
  const others = [...new Set(denied.slice(1).map((use) => use.feature))]
    .filter((feature) => feature !== first.feature);
  return others.length === 0
    ? head
    : `${head}; also denied: ${others.map((feature) => `"${feature}"`).join(", ")}`;
}
