// ovhooks for the Pi coding agent: long-term memory through the `ovhooks` hook runner.
// Placed by `ovhooks install pi`, removed by `ovhooks uninstall pi`; edits here are replaced.
//
// A thin shim: for each memory event it starts `ovhooks <hook> --host pi`, writes a small JSON
// payload on its stdin and reads one JSON reply. Every failure (no ovhooks, a crash, a
// timeout, bad JSON) means "no reply": the agent is never blocked and never sees an error.
// All decisions (what to recall, capture, commit) are made by ovhooks, in Python.
import { spawn } from "node:child_process";

const OVHOOKS: string[] = ["ovhooks"]; // ovhooks-command (written by `ovhooks install pi`)
const HOST = "pi";
// Each hook answers before its own deadline; these only bound a hung process.
const TIMEOUT_MS: Record<string, number> = {
	"session-start": 12000,
	"user-prompt-submit": 12000,
	stop: 12000,
	"pre-compact": 32000,
	"session-end": 6000,
	"pre-tool-use": 5000,
};
// File tools whose target can be a viking:// memory URI (ovhooks names the command to use).
const GUARDED_TOOLS = new Set(["read", "grep", "find", "ls"]);
// OVHOOKS_SHIM_TIMEOUT_MS (milliseconds) replaces every bound above: for tests and debugging.
const TIMEOUT_OVERRIDE_MS = Number(process.env.OVHOOKS_SHIM_TIMEOUT_MS) || 0;
const MAX_REPLY_CHARS = 1_000_000;

type Reply = { hookSpecificOutput?: { additionalContext?: unknown }; systemMessage?: unknown };

function runHook(hook: string, payload: Record<string, unknown>): Promise<Reply> {
	return new Promise((resolve) => {
		let settled = false;
		let out = "";
		let timer: ReturnType<typeof setTimeout> | undefined;
		const finish = (reply: Reply) => {
			if (settled) return;
			settled = true;
			if (timer) clearTimeout(timer);
			resolve(reply);
		};
		let child: ReturnType<typeof spawn>;
		try {
			child = spawn(OVHOOKS[0], [...OVHOOKS.slice(1), hook, "--host", HOST], {
				stdio: ["pipe", "pipe", "ignore"],
				env: process.env,
			});
		} catch {
			finish({});
			return;
		}
		timer = setTimeout(() => {
			try {
				child.kill("SIGKILL");
			} catch {}
			finish({});
		}, TIMEOUT_OVERRIDE_MS || TIMEOUT_MS[hook] || 12000);
		child.on("error", () => finish({}));
		child.stdout?.setEncoding("utf8");
		child.stdout?.on("data", (chunk: string) => {
			if (out.length < MAX_REPLY_CHARS) out += chunk;
		});
		child.on("close", () => {
			try {
				const reply = JSON.parse(out);
				finish(reply && typeof reply === "object" ? reply : {});
			} catch {
				finish({});
			}
		});
		child.stdin?.on("error", () => {});
		child.stdin?.end(JSON.stringify(payload));
	});
}

function contextOf(reply: Reply): string {
	const text = reply?.hookSpecificOutput?.additionalContext;
	return typeof text === "string" ? text : "";
}

function base(ctx: any, event: string): Record<string, unknown> {
	const sm = ctx?.sessionManager;
	const call = (name: string) => {
		try {
			return typeof sm?.[name] === "function" ? sm[name]() : undefined;
		} catch {
			return undefined;
		}
	};
	return {
		hook_event_name: event,
		session_id: call("getSessionId") ?? "",
		transcript_path: call("getSessionFile") ?? "",
		leaf_id: call("getLeafId") ?? "",
		cwd: typeof ctx?.cwd === "string" ? ctx.cwd : process.cwd(),
	};
}

export default function ovhooks(pi: any) {
	// The session-start block, per session id: added to the system prompt of every run.
	const startBlocks = new Map<string, string>();

	const sessionStart = async (ctx: any, reason: string) => {
		const payload = { ...base(ctx, "session_start"), reason };
		const reply = await runHook("session-start", payload);
		startBlocks.set(String(payload.session_id), contextOf(reply));
	};

	pi.on("session_start", async (event: any, ctx: any) => {
		await sessionStart(ctx, String(event?.reason ?? "startup"));
	});

	pi.on("before_agent_start", async (event: any, ctx: any) => {
		const payload = base(ctx, "before_agent_start");
		const sid = String(payload.session_id);
		if (!startBlocks.has(sid)) await sessionStart(ctx, "resume"); // `pi -c` may skip it
		const prompt = typeof event?.prompt === "string" ? event.prompt : "";
		const recall = contextOf(await runHook("user-prompt-submit", { ...payload, prompt }));
		const blocks = [startBlocks.get(sid) ?? "", recall].filter((b) => b.trim());
		if (!blocks.length) return undefined;
		const system = typeof event?.systemPrompt === "string" ? event.systemPrompt : "";
		return { systemPrompt: [system, ...blocks].join("\n\n") };
	});

	pi.on("agent_end", async (_event: any, ctx: any) => {
		await runHook("stop", base(ctx, "agent_end"));
	});

	pi.on("session_before_compact", async (event: any, ctx: any) => {
		const reason = typeof event?.reason === "string" ? event.reason : "";
		await runHook("pre-compact", { ...base(ctx, "session_before_compact"), reason });
		return undefined; // Pi's own compaction runs unchanged
	});

	// A file tool aimed at a viking:// URI is blocked with ovhooks' reason; only such calls
	// start a process. Never throws: an error in a tool_call handler would block the tool.
	pi.on("tool_call", async (event: any, ctx: any) => {
		try {
			const tool = event?.toolName;
			if (!GUARDED_TOOLS.has(tool) || !JSON.stringify(event?.input ?? {}).includes("viking://")) {
				return undefined;
			}
			const payload = { ...base(ctx, "tool_call"), tool, input: event.input };
			const out: any = (await runHook("pre-tool-use", payload))?.hookSpecificOutput;
			if (out?.permissionDecision === "deny") {
				return { block: true, reason: String(out.permissionDecisionReason ?? "") };
			}
		} catch {}
		return undefined;
	});

	pi.on("session_shutdown", async (event: any, ctx: any) => {
		const reason = typeof event?.reason === "string" ? event.reason : "quit";
		await runHook("session-end", { ...base(ctx, "session_shutdown"), reason });
	});
}
