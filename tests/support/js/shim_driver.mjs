// Test driver: load one ovhooks shim in its host's runtime, call one handler once, and
// print {"ms": elapsed, "result": what the handler returned or added} as one JSON line.
// Pi's extension is loaded through jiti (as Pi loads it; JITI_MODULE names jiti.mjs);
// OpenCode's plugin is imported by the Bun inside the opencode binary (BUN_BE_BUN=1).
const [shimPath, host, event, payloadJson] = process.argv.slice(2);
const payload = JSON.parse(payloadJson);
const started = performance.now();
let result;
if (host === "pi") {
	const { createJiti } = await import(process.env.JITI_MODULE);
	const jiti = createJiti(import.meta.url, { moduleCache: false });
	const factory = await jiti.import(shimPath, { default: true });
	const handlers = {};
	factory({ on: (name, fn) => { handlers[name] = fn; } });
	const ctx = {
		cwd: payload.cwd,
		sessionManager: {
			getSessionId: () => payload.session_id,
			getSessionFile: () => payload.transcript_path,
			getLeafId: () => null,
		},
	};
	const t0 = performance.now();
	const piEvent = { type: event, ...payload, systemPrompt: "BASE" };
	result = await handlers[event](piEvent, ctx);
	result = { returned: result ?? null, handlers: Object.keys(handlers).sort(), ms: performance.now() - t0 };
} else {
	const mod = await import(shimPath);
	const hooks = await mod.OvhooksMemory({ directory: payload.cwd });
	const t0 = performance.now();
	const system = [];
	if (event === "tool.execute.before") {
		try {
			await hooks[event]({ tool: payload.tool, sessionID: payload.session_id, callID: "c1" },
				{ args: payload.input });
			system.push("ALLOWED");
		} catch (error) {
			system.push("BLOCKED: " + error.message);
		}
	} else if (event === "chat.message") {
		await hooks["chat.message"]({ sessionID: payload.session_id },
			{ message: {}, parts: [{ type: "text", text: payload.prompt }] });
		await hooks["experimental.chat.system.transform"]({ sessionID: payload.session_id }, { system });
	} else {
		await hooks.event({ event: { type: event, properties: { sessionID: payload.session_id } } });
	}
	result = { system, handlers: Object.keys(hooks).sort(), ms: performance.now() - t0 };
}
console.log(JSON.stringify(result));
