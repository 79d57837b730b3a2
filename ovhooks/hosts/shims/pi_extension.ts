// ovhooks for the Pi coding agent: long-term memory through the `ovhooks` hook runner.
// Placed by `ovhooks install pi`, removed by `ovhooks uninstall pi`; edits here are replaced.
//
// A thin shim: for each memory event it starts `ovhooks <hook> --host pi`, writes a small JSON
// payload on its stdin and reads one JSON reply. It fails open (ovhooks/hosts/launch.py has
// the contract): no ovhooks, a crash, bad JSON or a timeout all mean "no reply"; a hung
// process is killed with its process group at its bound (and when Pi exits), and after a hang
// the next SKIP_AFTER_HANG hooks answer at once without starting ovhooks.
//
// Memory goes where Pi keeps the conversation, so the provider's prompt cache stays valid: the
// recall for a prompt is a custom message after it (stored with the turn, sent with every
// later call, byte for byte), and the session-start block rides with the first prompt of the
// session (or the first after a compaction). The system prompt is never touched.
// All decisions (what to recall, capture, commit) are made by ovhooks, in Python.
import { spawn } from "node:child_process";

const OVHOOKS: string[] = ["ovhooks"]; // ovhooks-command (written by `ovhooks install pi`)
const HOST = "pi";
// The bound on each process, per hook (ovhooks/hosts/launch.py KILL_AFTER_S): each hook
// answers well before it; only a hung process ever reaches it.
const TIMEOUT_MS: Record<string, number> = {
	"session-start": 4000,
	"user-prompt-submit": 4000,
	stop: 6000,
	"pre-compact": 6000,
	"session-end": 6000,
	"pre-tool-use": 3000,
};
const SKIP_AFTER_HANG = 19;
// The custom message type of what ovhooks adds to the conversation (display: false).
const MEMORY_TYPE = "ovhooks-memory";
// File tools whose target can be a viking:// memory URI (ovhooks names the command to use).
const GUARDED_TOOLS = new Set(["read", "grep", "find", "ls"]);
// OVHOOKS_SHIM_TIMEOUT_MS (milliseconds) replaces every bound above: for tests and debugging.
const TIMEOUT_OVERRIDE_MS = Number(process.env.OVHOOKS_SHIM_TIMEOUT_MS) || 0;
const MAX_REPLY_CHARS = 1_000_000;

type Reply = { hookSpecificOutput?: { additionalContext?: unknown }; systemMessage?: unknown };

const running = new Set<ReturnType<typeof spawn>>();
let skipLeft = 0; // hooks still to skip after a hang

function killGroup(child: ReturnType<typeof spawn>): void {
	try {
		if (child.pid) process.kill(-child.pid, "SIGKILL"); // ovhooks and anything it started
	} catch {
		try {
			child.kill("SIGKILL");
		} catch {}
	}
}

// Pi exiting (or reloading) mid-hook: nothing ovhooks started outlives it.
process.once("exit", () => {
	for (const child of running) killGroup(child);
});

function runHook(hook: string, payload: Record<string, unknown>): Promise<Reply> {
	if (skipLeft > 0) {
		skipLeft -= 1;
		return Promise.resolve({});
	}
	return new Promise((resolve) => {
		let settled = false;
		let out = "";
		let timer: ReturnType<typeof setTimeout> | undefined;
		let child: ReturnType<typeof spawn> | undefined;
		const finish = (reply: Reply) => {
			if (settled) return;
			settled = true;
			if (timer) clearTimeout(timer);
			if (child) running.delete(child);
			resolve(reply);
		};
		try {
			child = spawn(OVHOOKS[0], [...OVHOOKS.slice(1), hook, "--host", HOST], {
				stdio: ["pipe", "pipe", "ignore"],
				env: process.env,
				detached: true, // its own process group, killed whole on timeout
			});
		} catch {
			finish({});
			return;
		}
		const started = child;
		running.add(started);
		timer = setTimeout(() => {
			killGroup(started);
			skipLeft = SKIP_AFTER_HANG;
			finish({});
		}, TIMEOUT_OVERRIDE_MS || TIMEOUT_MS[hook] || 6000);
		started.on("error", () => finish({}));
		started.stdout?.setEncoding("utf8");
		started.stdout?.on("data", (chunk: string) => {
			if (out.length < MAX_REPLY_CHARS) out += chunk;
		});
		started.on("close", () => {
			try {
				const reply = JSON.parse(out);
				finish(reply && typeof reply === "object" ? reply : {});
			} catch {
				finish({});
			}
		});
		started.stdin?.on("error", () => {});
		started.stdin?.end(JSON.stringify(payload));
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

// Whether the session-start block is already in the conversation Pi sends: an ovhooks
// message carrying it on the current branch, after the latest compaction.
function startBlockGiven(ctx: any): boolean {
	let branch: any[] = [];
	try {
		const got = ctx?.sessionManager?.getBranch?.();
		if (Array.isArray(got)) branch = got;
	} catch {}
	for (let i = branch.length - 1; i >= 0; i--) {
		const entry = branch[i];
		if (entry?.type === "compaction") return false;
		if (entry?.type === "custom_message" && entry?.customType === MEMORY_TYPE) {
			if (entry?.details?.sessionStart === true) return true;
		}
	}
	return false;
}

export default function ovhooks(pi: any) {
	// The session-start block, per session id: given once, with the session's first prompt.
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
		const given = startBlockGiven(ctx);
		if (!given && !startBlocks.has(sid)) await sessionStart(ctx, "resume"); // `pi -c` may skip it
		const prompt = typeof event?.prompt === "string" ? event.prompt : "";
		const recall = contextOf(await runHook("user-prompt-submit", { ...payload, prompt }));
		const start = given ? "" : (startBlocks.get(sid) ?? "");
		const blocks = [start, recall].filter((b) => b.trim());
		if (!blocks.length) return undefined;
		// After the prompt, stored with the turn: earlier requests stay a prefix of later ones.
		const details = { sessionStart: Boolean(start.trim()) };
		return { message: { customType: MEMORY_TYPE, content: blocks.join("\n\n"), display: false, details } };
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
