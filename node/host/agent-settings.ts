/**
 * `:Tine model` in a thread whose program offers settings of its own (an ACP agent's mode, model,
 * effort: the runner's `agentSettings`): what it offers, and one of them set. A thread whose
 * runner has none answers null, and the picker offers tine's own models instead.
 */
import type { AgentSetting } from "../chat/runner.ts";
import type { Thread } from "../chat/thread.ts";

/** What thread `thread`'s program offers, or null when it offers none (tine chooses its model). */
export async function agentSettingsOf(thread: Thread): Promise<readonly AgentSetting[] | null> {
  const settings = thread.runner.agentSettings;
  return settings ? settings.offered() : null;
}

/** Sets `setting` to `value` on `thread`'s program; refused in a thread another Neovim writes. */
export async function chooseAgentSetting(thread: Thread, setting: string, value: string): Promise<true> {
  if (thread.readOnlyBy !== null)
    throw new Error(`tine: ${thread.title} is open for writing in another Neovim: its settings cannot be changed here`);
  const settings = thread.runner.agentSettings;
  if (!settings) throw new Error(`tine: ${thread.title} has no settings of its program's: :Tine model chooses its model`);
  await settings.choose(setting, value);
  return true;
}
