/**
 * The commands a README shows, as a user would type them: every line of a ```sh block, and every `$ `
 * line of another block with the output printed under it. A trailing `\` joins the next line; a
 * comment after two spaces (`npm test   # …`) is not part of the command, and a line that is only a
 * comment (`# aws-cdk-lib … are peer dependencies`) is none. The section is the `## `
 * heading above, so a test can say where each command runs (a clone, or a project that installed the tarball).
 */
export interface ReadmeCommand {
  readonly section: string;
  readonly command: string;
  /** The lines shown under a `$ ` command, up to the next one. */
  readonly output: readonly string[];
}

export function readmeCommands(markdown: string): ReadmeCommand[] {
  const out: Array<{ section: string; command: string; output: string[] }> = [];
  let section = '';
  let fence: string | null = null;
  let pending = '';
  /** The command whose output the current `$ ` block is printing. */
  let printing: { output: string[] } | null = null;
  for (const line of markdown.split('\n')) {
    const heading = /^## (.+)$/.exec(line);
    if (fence === null) {
      if (heading) section = heading[1]!;
      const open = /^```(\w*)\s*$/.exec(line);
      if (open) fence = open[1]!;
      continue;
    }
    if (/^```\s*$/.test(line)) {
      fence = null;
      printing = null;
      continue;
    }
    if (fence !== 'sh' && fence !== '') continue; // ts, json, …: code, not commands
    const typed = fence === 'sh' ? line : line.startsWith('$ ') ? line.slice(2) : pending ? line : null;
    if (typed === null) {
      printing?.output.push(line);
      continue;
    }
    const text = pending + typed.replace(/\s{2,}#.*$/, '').trim();
    if (text.endsWith('\\')) {
      pending = `${text.slice(0, -1).trimEnd()} `;
      continue;
    }
    pending = '';
    if (!text || text.startsWith('#')) continue;
    const command = { section, command: text, output: [] };
    out.push(command);
    printing = fence === 'sh' ? null : command;
  }
  return out;
}
