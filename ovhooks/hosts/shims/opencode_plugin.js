// ovhooks for OpenCode: long-term memory through the `ovhooks` hook runner.
// Placed by `ovhooks install opencode`, removed by `ovhooks uninstall opencode`; edits here
// are replaced. Node built-ins only: OpenCode never has to install anything for it.
//
// A thin shim: for each memory event it starts `ovhooks <hook> --host opencode`, writes a
// small JSON payload on its stdin and reads one JSON reply. It fails open
// (ovhooks/hosts/launch.py has the contract): no ovhooks, a crash, bad JSON or a timeout all
// mean "no reply"; a hung process is killed with its process group at its bound (and when
// OpenCode exits), and after a hang the next SKIP_AFTER_HANG hooks answer at once.
//
// Memory goes where OpenCode keeps the conversation, so the provider's prompt cache stays
// valid: the recall for a prompt is a synthetic text part after it in the same user message
// (stored with the turn), and the session-start block rides with the session's first prompt.
// The system prompt is never touched; subagent sessions get nothing, and title generation
// reads only the user's own parts. All decisions (what to recall, capture, commit) are made
// by ovhooks, in Python, which reads the conversation from OpenCode's database (read-only).
import { execFileSync, spawn } from "node:child_process";
import { readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const OVHOOKS = ["ovhooks"]; // ovhooks-command (written by `ovhooks install opencode`)
const HOST = "opencode";
// The bound on each process, per hook (ovhooks/hosts/launch.py KILL_AFTER_S): each hook
// answers well before it; only a hung process ever reaches it.
const TIMEOUT_MS = {
	"session-start": 4000,
	"user-prompt-submit": 4000,
	stop: 6000,
	"pre-compact": 6000,
	"session-end": 6000,
	"pre-tool-use": 3000,
};
const SKIP_AFTER_HANG = 19;
// Marks ovhooks' parts (metadata), so that a continued session is not given its block twice.
const MEMORY_MARK = "ovhooks-memory";
// File tools whose target can be a viking:// memory URI (ovhooks names the command to use).
const GUARDED_TOOLS = new Set(["read", "glob", "grep", "list"]);
// OVHOOKS_SHIM_TIMEOUT_MS (milliseconds) replaces every bound above: for tests and debugging.
const TIMEOUT_OVERRIDE_MS = Number(process.env.OVHOOKS_SHIM_TIMEOUT_MS) || 0;
const MAX_REPLY_CHARS = 1000000;

const running = new Set();
let skipLeft = 0; // hooks still to skip after a hang

function killGroup(child) {
	try {
		if (child.pid) process.kill(-child.pid, "SIGKILL"); // ovhooks and anything it started
	} catch {
		try {
			child.kill("SIGKILL");
		} catch {}
	}
}

// OpenCode exiting mid-hook: nothing ovhooks started outlives it.
process.once("exit", () => {
	for (const child of running) killGroup(child);
});

// This OpenCode process's hang marker, shared with the memory server's launcher
// (ovhooks/hosts/mcp_launch.sh, which OpenCode starts with this process as its parent): in
// the first of $XDG_RUNTIME_DIR, $TMPDIR, /tmp that is a folder, as the launcher looks.
function hangMarker() {
	for (const dir of [process.env.XDG_RUNTIME_DIR, process.env.TMPDIR, "/tmp"]) {
		try {
			if (dir && statSync(dir).isDirectory()) return join(dir, `ovhooks-hung-${process.pid}`);
		} catch {}
	}
	return "";
}

// This process's start as the launcher reads it (`ps -o lstart=`, words joined by one space;
// "" without ps): a marker is this process's only with it, not a dead one's whose pid came
// back. Asked only when a marker is written or found counting.
let startOfHost;
function hostStart() {
	if (startOfHost === undefined) {
		try {
			const out = execFileSync("ps", ["-o", "lstart=", "-p", String(process.pid)], {
				encoding: "utf8",
				stdio: ["ignore", "pipe", "ignore"],
				timeout: 2000,
			});
			startOfHost = out.split(/\s+/).filter(Boolean).join(" ");
		} catch {
			startOfHost = "";
		}
	}
	return startOfHost;
}

// A hang one side met is the other's too: a hook that hung makes the memory server's start
// end at once ("1" and this process's start), and a server start the launcher had to stop
// makes the hooks skip (taken: set to "0"). The hooks clear it when their skipping ends.
function setHangMarker(value) {
	try {
		const marker = hangMarker();
		if (marker) writeFileSync(marker, value ? `${value} ${hostStart()}\n` : "0\n");
	} catch {}
}

function launcherMarkedHang() {
	try {
		const marker = hangMarker();
		const [first, ...start] = marker ? readFileSync(marker, "utf8").trim().split(/\s+/) : [];
		const count = Number(first);
		if (count >= 1 && count <= SKIP_AFTER_HANG) {
			const ours = start.join(" ") === hostStart();
			setHangMarker(0);
			return ours;
		}
	} catch {}
	return false;
}

function runHook(hook, payload) {
	if (skipLeft === 0 && launcherMarkedHang()) skipLeft = SKIP_AFTER_HANG;
	if (skipLeft > 0) {
		skipLeft -= 1;
		if (skipLeft === 0) setHangMarker(0);
		return Promise.resolve({});
	}
	return new Promise((resolve) => {
		let settled = false;
		let out = "";
		let timer;
		let child;
		const finish = (reply) => {
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
		running.add(child);
		timer = setTimeout(() => {
			killGroup(child);
			skipLeft = SKIP_AFTER_HANG;
			setHangMarker(1);
			finish({});
		}, TIMEOUT_OVERRIDE_MS || TIMEOUT_MS[hook] || 6000);
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

// A part id after every id in ``parts``: OpenCode orders a message's parts by id
// ("prt_" + 12 hex digits of milliseconds * 4096 + a counter, then 14 random characters).
let lastPartStamp = 0n;
function partIdAfter(parts) {
	let stamp = BigInt(Date.now()) * 4096n;
	for (const part of parts) {
		const id = typeof part?.id === "string" ? part.id : "";
		if (/^prt_[0-9a-f]{12}/.test(id)) {
			const theirs = BigInt("0x" + id.slice(4, 16));
			if (theirs >= stamp) stamp = theirs + 1n;
		}
	}
	if (stamp <= lastPartStamp) stamp = lastPartStamp + 1n;
	lastPartStamp = stamp;
	const chars = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
	let tail = "";
	for (let i = 0; i < 14; i++) tail += chars[Math.floor(Math.random() * 62)];
	return "prt_" + stamp.toString(16).padStart(12, "0").slice(-12) + tail;
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

// Whether an earlier message of the session already carries ovhooks' session-start block.
async function startBlockStored(client, sessionID) {
	try {
		const got = await client?.session?.messages?.({ path: { id: sessionID } });
		const messages = Array.isArray(got?.data) ? got.data : Array.isArray(got) ? got : [];
		return messages.some((m) =>
			(m?.parts ?? []).some((p) => p?.metadata?.[MEMORY_MARK] === "session-start"),
		);
	} catch {
		return false;
	}
}

export const OvhooksMemory = async (input) => {
	const cwd = typeof input?.directory === "string" ? input.directory : process.cwd();
	const startBlocks = new Map(); // session id -> the session-start block ("" once given)
	const created = new Set(); // sessions created in this process (nothing stored before)
	const subagents = new Set(); // child sessions (a task's subagent): no memory
	const payload = (event, sessionID, extra) => ({
		hook_event_name: event,
		session_id: typeof sessionID === "string" ? sessionID : "",
		cwd,
		...extra,
	});
	// Stored "ignored" (so title generation, which reads stored parts as they are, never sees
	// it) and shown to the main agent's model calls by the messages transform below.
	const memoryPart = (parts, sid, messageID, text, kind) => ({
		id: partIdAfter(parts),
		sessionID: sid,
		messageID,
		type: "text",
		text,
		synthetic: true,
		ignored: true,
		metadata: { [MEMORY_MARK]: kind },
	});
	let compacting = false; // the next messages transform builds a compaction summary

	return {
		// Added after the user's parts of the same message, stored with the turn: every later
		// request repeats it byte for byte, so the provider's cached prefix stays valid.
		"chat.message": async (hookInput, output) => {
			const sid = hookInput?.sessionID;
			const parts = output?.parts;
			if (typeof sid !== "string" || !Array.isArray(parts) || subagents.has(sid)) return;
			const messageID = output?.message?.id ?? parts.find((p) => p?.messageID)?.messageID;
			if (!startBlocks.has(sid)) {
				// Once per session and process (it registers the session, and commits ended ones);
				// its block only if no earlier message of a continued session carries it.
				const reply = await runHook("session-start", payload("chat.message", sid, {}));
				const stored = !created.has(sid) && (await startBlockStored(input?.client, sid));
				startBlocks.set(sid, stored ? "" : contextOf(reply));
			}
			const prompt = promptOf(parts);
			const reply = await runHook("user-prompt-submit", payload("chat.message", sid, { prompt }));
			const start = startBlocks.get(sid) ?? "";
			const recall = contextOf(reply);
			if (start.trim()) parts.push(memoryPart(parts, sid, messageID, start, "session-start"));
			if (recall.trim()) parts.push(memoryPart(parts, sid, messageID, recall, "recall"));
			startBlocks.set(sid, ""); // given once
		},
		// Before each main-agent model call: ovhooks' stored parts are shown, as stored (the
		// same bytes every call), in a synthetic message right after the user message that
		// holds them. The user message itself is left as it is: a session's first call forks its
		// title generation with this same array, and whenever that fiber starts it counts only
		// user messages with a part of the user's own and slices up to the first one, so it
		// never reaches the added message (replacing the user message raced with it: seen when
		// the machine was loaded). A compaction summary's call (announced by the compacting hook
		// just before) leaves them out.
		"experimental.chat.messages.transform": async (_hookInput, output) => {
			if (compacting) {
				compacting = false;
				return;
			}
			const messages = output?.messages;
			if (!Array.isArray(messages)) return;
			const shown = [];
			for (const message of messages) {
				shown.push(message);
				const parts = Array.isArray(message?.parts) ? message.parts : [];
				const mine = parts.filter((p) => p?.metadata?.[MEMORY_MARK]);
				if (mine.length) shown.push({ ...message, parts: mine.map((p) => ({ ...p, ignored: false })) });
			}
			if (shown.length !== messages.length) messages.splice(0, messages.length, ...shown);
		},
		"experimental.session.compacting": async (hookInput) => {
			compacting = true;
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
			if (event?.type === "session.created" && typeof props.info?.id === "string") {
				created.add(props.info.id);
				if (props.info.parentID) subagents.add(props.info.id);
			} else if (event?.type === "session.idle") {
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
