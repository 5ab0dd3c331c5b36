/** The thread list: one line per thread, forks indented under their parent, status kept live. */
import type { Chat } from "../chat/chat.ts";
import type { ThreadId } from "../chat/msgs.ts";

const STATUS_ICON = { idle: "·", streaming: "⋯", waiting: "⏳", error: "⚠" } as const;

export class ThreadList {
  private ids: ThreadId[] = [];

  render(chat: Chat): string[] {
    const lines: string[] = [];
    this.ids = [];
    const visit = (id: ThreadId, depth: number) => {
      const t = chat.threads.get(id)!;
      const active = chat.activeId === id ? "▶" : " ";
      lines.push(`${active} ${"  ".repeat(depth)}${depth ? "⑂ " : ""}${t.title}  ${STATUS_ICON[t.status]} ${t.status}`);
      this.ids.push(id);
      for (const child of chat.childrenOf(id)) visit(child, depth + 1);
    };
    for (const id of chat.threads.keys()) if (!chat.lineage.has(id)) visit(id, 0);
    return lines.length ? lines : ["(no threads yet: :Tine new)"];
  }

  idAt(line: number): ThreadId | null {
    return this.ids[line] ?? null;
  }
}
