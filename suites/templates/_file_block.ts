/**
 * Model answers in the scripted agents' format (`containers/agents/_model.ts`,
 * `fileBlocks`): "```file:<path>\n<content>\n```". The agent drops the one
 * newline before the closing fence, so the block carries it explicitly and
 * the written file is byte-identical to `content`.
 *
 * @module
 */

/**
 * One file block whose extracted content is exactly `content`.
 *
 * @param path workspace-relative path
 * @param content the file's text
 * @returns the block, ending with a newline
 */
export function fileBlock(path: string, content: string): string {
  return "```file:" + path + "\n" + content + "\n```\n";
}
