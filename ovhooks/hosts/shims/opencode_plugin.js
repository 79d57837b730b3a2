// ovhooks for OpenCode: long-term memory through the `ovhooks` hook runner.
// Placed by `ovhooks install opencode`, removed by `ovhooks uninstall opencode`; edits here
// are replaced. Node built-ins only: OpenCode never has to install anything for it.
//
// A thin shim: for each memory event it starts `ovhooks <hook> --host opencode`, writes a
// small JSON payload on its stdin and reads one JSON reply. Every failure (no ovhooks, a
// crash, a timeout, bad JSON) means "no reply": OpenCode is never blocked and never sees an
// error. All decisions (what to recall, capture, commit) are made by ovhooks, in Python,
// which reads the conversation from OpenCode's own database (read-only).
import { spawn } from "node:child_process";

const OVHOOKS = ["ovhooks"]; // ovhooks-command (written by `ovhooks install opencode`)
const HOST = "opencode";
// Each hook answers before its own deadline; these only bound a hung process.
const TIMEOUT_MS = {
	"session-start": 12000,
	"user-prompt-submit": 12000,
	stop: 12000,
	"pre-compact": 32000,
	"session-end": 6000,
	"pre-tool-use": 5000,
};
// File tools whose target can be a viking:// memory URI (ovhooks names the command to use).
const GUARDED_TOOLS = new Set(["read", "glob", "grep", "list"]);
// OVHOOKS_SHIM_TIMEOUT_MS (milliseconds) replaces every bound above: for tests and debugging.
const TIMEOUT_OVERRIDE_MS = Number(process.env.OVHOOKS_SHIM_TIMEOUT_MS) || 0;
const MAX_REPLY_CHARS = 1000000;

function runHook(hook, payload) {
	return new Promise((resolve) => {
		let settled = false;
		let out = "";
		let timer;
		const finish = (reply) => {
			if (settled) return;
			settled = true;
			if (timer) clearTimeout(timer);
			resolve(reply);
		};
		let child;
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
		child.stdout?.on("data", (chunk) => {
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

function contextOf(reply) {
	const text = reply?.hookSpecificOutput?.additionalContext;
	return typeof text === "string" ? text : "";
}

function promptOf(parts) {
	if (!Array.isArray(parts)) return "";
	return parts
		.filter((p) => p && p.type === "text" && !p.synthetic && !p.ignored && typeof p.text === "string")
		.map((p) => p.text)
		.join("\n\n");
}

export const OvhooksMemory = async (input) => {
	const cwd = typeof input?.directory === "string" ? input.directory : process.cwd();
	const startBlocks = new Map(); // session id -> the session-start block
	const recallBlocks = new Map(); // session id -> what was recalled for its latest prompt
	const payload = (event, sessionID, extra) => ({
		hook_event_name: event,
		session_id: typeof sessionID === "string" ? sessionID : "",
		cwd,
		...extra,
	});

	return {
		"chat.message": async (hookInput, output) => {
			const sid = hookInput?.sessionID;
			if (typeof sid !== "string") return;
			if (!startBlocks.has(sid)) {
				const reply = await runHook("session-start", payload("chat.message", sid, {}));
				startBlocks.set(sid, contextOf(reply));
			}
			const prompt = promptOf(output?.parts);
			const reply = await runHook("user-prompt-submit", payload("chat.message", sid, { prompt }));
			recallBlocks.set(sid, contextOf(reply));
		},
		// Added to the system prompt of each model call, never stored in the session.
		"experimental.chat.system.transform": async (hookInput, output) => {
			const sid = hookInput?.sessionID;
			if (typeof sid !== "string" || !Array.isArray(output?.system)) return;
			for (const block of [startBlocks.get(sid), recallBlocks.get(sid)]) {
				if (typeof block === "string" && block.trim()) output.system.push(block);
			}
		},
		"experimental.session.compacting": async (hookInput) => {
			await runHook("pre-compact", payload("experimental.session.compacting", hookInput?.sessionID, {}));
		},
		// A file tool aimed at a viking:// URI is blocked (OpenCode blocks on a thrown Error,
		// whose message reaches the model); only such calls start a process.
		"tool.execute.before": async (hookInput, output) => {
			let reason = "";
			try {
				const tool = hookInput?.tool;
				if (!GUARDED_TOOLS.has(tool) || !JSON.stringify(output?.args ?? {}).includes("viking://")) {
					return;
				}
				const extra = { tool, input: output.args };
				const reply = await runHook("pre-tool-use", payload("tool.execute.before", hookInput?.sessionID, extra));
				const out = reply?.hookSpecificOutput;
				if (out?.permissionDecision === "deny") reason = String(out.permissionDecisionReason ?? "");
			} catch {
				return;
			}
			if (reason) throw new Error(reason);
		},
		event: async ({ event }) => {
			const props = event?.properties ?? {};
			if (event?.type === "session.idle") {
				await runHook("stop", payload("session.idle", props.sessionID, {}));
			} else if (event?.type === "session.deleted") {
				const sid = props.info?.id ?? props.sessionID;
				await runHook("session-end", payload("session.deleted", sid, { reason: "deleted" }));
			}
		},
		dispose: async () => {
			const ids = [...startBlocks.keys()];
			await Promise.all(
				ids.map((sid) => runHook("session-end", payload("dispose", sid, { reason: "dispose" }))),
			);
		},
	};
};
