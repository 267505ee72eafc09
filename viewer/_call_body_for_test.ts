/**
 * One stored model call's bodies for the tests of the transcript and the
 * pages: the request and the response kept whole, as the relay stores them
 * (`runner/relay/call_bodies.ts`).
 *
 * @module
 */

/**
 * A stored body pair, kept whole (not truncated).
 *
 * @param index the call's index
 * @param endpoint the path called, e.g. `/v1/chat/completions`
 * @param request the request body, written as JSON
 * @param response the response body's text
 * @returns the pair as an episode log's `bodies` holds it
 */
export function callBody(index: number, endpoint: string, request: unknown, response: string) {
  const requestText = JSON.stringify(request);
  return {
    index,
    endpoint,
    request: { text: requestText, bytes: requestText.length, truncated: false },
    response: { text: response, bytes: response.length, truncated: false },
  };
}

/** What {@link toolConversation} says. */
export interface ToolTurns {
  user: string;
  tool: string;
  /** The tool call's arguments, as the model wrote them (JSON text). */
  arguments: string;
  result: string;
  reply: string;
}

/**
 * Two stored Chat Completions calls of model "m": the user's message, the
 * model's one tool call (id "c1"), then the conversation with the tool's
 * result and the model's last reply.
 *
 * @param turns the texts of the turns
 * @returns the two body pairs
 */
export function toolConversation(turns: ToolTurns) {
  const user = { role: "user", content: turns.user };
  const call = {
    role: "assistant",
    content: null,
    tool_calls: [{
      id: "c1",
      type: "function",
      function: { name: turns.tool, arguments: turns.arguments },
    }],
  };
  const result = { role: "tool", tool_call_id: "c1", content: turns.result };
  const pair = (index: number, request: unknown, response: unknown) =>
    callBody(index, "/v1/chat/completions", request, JSON.stringify(response));
  return [
    pair(1, { model: "m", messages: [user] }, { choices: [{ message: call }] }),
    pair(2, { model: "m", messages: [user, call, result] }, {
      choices: [{ message: { role: "assistant", content: turns.reply } }],
    }),
  ];
}
