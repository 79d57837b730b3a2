// Test driver: load one ovhooks shim in its host's runtime, call one handler (DRIVER_REPEAT
// times, default once), and print {"ms", "each_ms", "result"...} as one JSON line.
// Pi's extension is loaded through jiti (as Pi loads it; JITI_MODULE names jiti.mjs);
// OpenCode's plugin is imported by the Bun inside the opencode binary (BUN_BE_BUN=1).
// "added": what the handler put into the conversation (Pi: the returned message's content;
// OpenCode: the text of the parts it added to the user message, or a tool call's outcome).
// DRIVER_MARKER: a hang marker to leave under this process's pid in $XDG_RUNTIME_DIR first
// ("{self}" becomes this process's start as `ps -o lstart=` prints it), as a host whose
// hooks are skipping after a hang, or a dead host whose pid came back, would have left it.
const [shimPath, host, event, payloadJson] = process.argv.slice(2);
if (process.env.DRIVER_MARKER) {
	const { execFileSync } = await import("node:child_process");
	const { writeFileSync } = await import("node:fs");
	const start = execFileSync("ps", ["-o", "lstart=", "-p", String(process.pid)], { encoding: "utf8" })
		.split(/\s+/).filter(Boolean).join(" ");
	writeFileSync(`${process.env.XDG_RUNTIME_DIR}/ovhooks-hung-${process.pid}`,
		`${process.env.DRIVER_MARKER.replace("{self}", start)}\n`);
}
const payload = JSON.parse(payloadJson);
const repeat = Number(process.env.DRIVER_REPEAT) || 1;
const each = [];
let result;
if (host === "pi") {
	const { createJiti } = await import(process.env.JITI_MODULE);
	const jiti = createJiti(import.meta.url, { moduleCache: false });
	const factory = await jiti.import(shimPath, { default: true });
	const handlers = {};
	factory({ on: (name, fn) => { handlers[name] = fn; } });
	const branch = [...(payload.branch ?? [])]; // what Pi stores, as Pi stores it
	const ctx = {
		cwd: payload.cwd,
		sessionManager: {
			getSessionId: () => payload.session_id,
			getSessionFile: () => payload.transcript_path,
			getLeafId: () => null,
			getBranch: () => branch,
		},
	};
	const piEvent = { type: event, ...payload, systemPrompt: "BASE" };
	let returned;
	for (let i = 0; i < repeat; i++) {
		const t0 = performance.now();
		returned = await handlers[event](piEvent, ctx);
		each.push(performance.now() - t0);
		const message = returned?.message;
		if (message) branch.push({ type: "custom_message", ...message });
	}
	const content = returned?.message?.content;
	result = {
		returned: returned ?? null,
		added: typeof content === "string" ? [content] : [],
		handlers: Object.keys(handlers).sort(),
	};
} else {
	const mod = await import(shimPath);
	const hooks = await mod.OvhooksMemory({ directory: payload.cwd });
	const added = [];
	let parts = [];
	let shown = [];
	for (let i = 0; i < repeat; i++) {
		const t0 = performance.now();
		if (event === "tool.execute.before") {
			try {
				await hooks[event]({ tool: payload.tool, sessionID: payload.session_id, callID: "c1" },
					{ args: payload.input });
				added.push("ALLOWED");
			} catch (error) {
				added.push("BLOCKED: " + error.message);
			}
		} else if (event === "chat.message") {
			const user = { id: "prt_00000000000aUSERPARTxxxxx", sessionID: payload.session_id,
				messageID: "msg_1", type: "text", text: payload.prompt };
			parts = [user];
			await hooks["chat.message"]({ sessionID: payload.session_id },
				{ message: { id: "msg_1" }, parts });
			for (const part of parts.slice(1)) added.push(part.text);
			const transformed = { messages: [{ info: { id: "msg_1" }, parts }] };
			await hooks["experimental.chat.messages.transform"]({}, transformed);
			shown = transformed.messages.map((m) => m.parts.filter((p) => !p.ignored).map((p) => p.text));
		} else {
			await hooks.event({ event: { type: event, properties: { sessionID: payload.session_id } } });
		}
		each.push(performance.now() - t0);
	}
	result = { added, parts, shown, handlers: Object.keys(hooks).sort() };
}
result.each_ms = each;
result.ms = each.reduce((a, b) => a + b, 0);
console.log(JSON.stringify(result));
