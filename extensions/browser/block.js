// blocker's page in the browser: the site, why it is blocked, the balance, and
// the earn form. Its URL carries only the blocked host and site (in the
// fragment), never the page it replaced. It talks to the background only.
"use strict";

const api = globalThis.browser ?? globalThis.chrome;
const params = new URLSearchParams(location.hash.slice(1));
const host = params.get("host") || "";
const site = params.get("site") || host;

const $ = (id) => document.getElementById(id);

// `1d 02h`, `1h 05m`, `12m 30s`, `45s`: the two largest units, truncated
// (blocker's Durations.format).
function formatMs(ms) {
    if (ms < 0) return "-" + formatMs(-ms);
    const seconds = Math.floor(ms / 1000);
    const d = Math.floor(seconds / 86400), h = Math.floor(seconds / 3600) % 24;
    const m = Math.floor(seconds / 60) % 60, s = seconds % 60;
    const two = (n) => String(n).padStart(2, "0");
    if (d > 0) return `${d}d ${two(h)}h`;
    if (h > 0) return `${h}h ${two(m)}m`;
    if (m > 0) return `${m}m ${two(s)}s`;
    return `${s}s`;
}

function show(verdict, connected) {
    $("site").textContent = site || "this site";
    document.title = `${site} — blocker`;
    if (!verdict) {
        $("reason").textContent = connected === false ? "blocker is not running" : "Blocked";
        $("balance").textContent = "";
        return;
    }
    $("reason").textContent = verdict.words || "Blocked";
    $("balance").textContent = Number.isFinite(verdict.balance_ms) ? `Balance ${formatMs(verdict.balance_ms)}` : "";
    const exercises = Array.isArray(verdict.exercises) ? verdict.exercises : [];
    const select = $("exercise");
    const chosen = select.value;
    select.replaceChildren();
    for (const exercise of exercises) {
        if (!exercise || typeof exercise.name !== "string") continue;
        const option = document.createElement("option");
        option.value = exercise.name;
        option.textContent = Number.isFinite(exercise.per_rep_ms) && exercise.per_rep_ms > 0
            ? `${exercise.name} (${formatMs(exercise.per_rep_ms)} a rep)`
            : exercise.name;
        select.append(option);
    }
    if (chosen && exercises.some((e) => e && e.name === chosen)) select.value = chosen;
    const wasHidden = $("form").hidden;
    $("form").hidden = select.options.length === 0;
    // The reps are what one types: ready for the keyboard as the form appears.
    if (wasHidden && !$("form").hidden) {
        $("reps").focus();
        $("reps").select();
    }
}

function say(text, kind) {
    const message = $("message");
    message.textContent = text;
    message.className = "message" + (kind ? " " + kind : "");
}

$("form").addEventListener("submit", async (event) => {
    event.preventDefault();
    const reps = Number($("reps").value);
    if (!Number.isInteger(reps) || reps <= 0) {
        say("Give a whole number of reps", "error");
        return;
    }
    $("earn").disabled = true;
    say("Asking blocker…");
    try {
        const answer = await api.runtime.sendMessage({ type: "earn", exercise: $("exercise").value, reps });
        if (answer && answer.ok) say(answer.text, "success");
        else say((answer && answer.text) || "blocker did not answer", "error");
    } catch (error) {
        say(String(error && error.message ? error.message : error), "error");
    } finally {
        $("earn").disabled = false;
    }
});

api.runtime.onMessage.addListener((message) => {
    if (message && message.type === "verdict" && message.verdict && message.verdict.site === site) show(message.verdict, true);
});

show(null);
api.runtime.sendMessage({ type: "get-verdict", site }).then(
    (answer) => show(answer && answer.verdict, answer && answer.connected),
    () => show(null, false),
);
