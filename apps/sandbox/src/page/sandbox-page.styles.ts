/** Enough of each platform's look to tell the three panels apart at a glance. */
export const SANDBOX_STYLES = `
* { box-sizing: border-box; }
body { margin: 0; font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; background: #f3f3f5; color: #1d1c1d; }
.top { display: flex; flex-wrap: wrap; gap: 8px 24px; align-items: center; padding: 10px 16px; background: #1b1d2a; color: #eee; }
.brand b { font-size: 18px; }
.tagline { color: #aab; margin-left: 6px; }
.services { display: flex; flex-wrap: wrap; gap: 8px; }
.service { display: flex; align-items: center; gap: 6px; padding: 4px 8px; border-radius: 6px; background: #2a2d3e; font-size: 12px; }
.service .dot { width: 9px; height: 9px; border-radius: 50%; background: #888; }
.service.ready .dot { background: #2bac76; }
.service.starting .dot, .service.stopping .dot, .service.not-ready .dot { background: #e8a33d; }
.service.killed .dot, .service.exited .dot { background: #e01e5a; }
.service .state { color: #ccd; }
.service .port { color: #889; }
.service button { font-size: 11px; padding: 1px 6px; border-radius: 4px; border: 1px solid #556; background: #383c52; color: #eee; cursor: pointer; }
.service button[data-op=kill] { border-color: #a33; }
.panels { display: grid; grid-template-columns: repeat(3, minmax(0, 1fr)); gap: 12px; padding: 12px; }
.panel { position: relative; display: flex; flex-direction: column; height: calc(100vh - 84px); min-height: 480px; border-radius: 8px; overflow: hidden; background: #fff; box-shadow: 0 1px 3px rgba(0,0,0,.15); }
.panel h2 { margin: 0; padding: 10px 12px; font-size: 16px; color: #fff; }
.panel h2 small { font-weight: normal; opacity: .75; font-size: 12px; }
.panel.slack h2 { background: #4a154b; }
.panel.discord h2 { background: #5865f2; }
.panel.mattermost h2 { background: #1e325c; }
.person { padding: 6px 12px; font-size: 12px; color: #555; border-bottom: 1px solid #eee; }
.conversation { flex: 1; overflow-y: auto; padding: 8px 12px; }
.panel.discord .conversation { background: #313338; color: #dbdee1; }
.empty { color: #888; font-style: italic; }
.message { padding: 6px 8px; margin: 4px 0; border-radius: 6px; }
.message:hover { background: rgba(0,0,0,.03); }
.message.private { background: #fff7e0; border: 1px dashed #d9a400; }
.panel.discord .message.private { background: #3b3a2a; }
.meta { font-size: 12px; color: #616061; }
.panel.discord .meta { color: #949ba4; }
.meta b { color: inherit; font-size: 13px; }
.message.person .meta b { color: #1264a3; }
.app { font-size: 9px; background: #ddd; color: #555; padding: 0 3px; border-radius: 3px; vertical-align: middle; }
.panel.discord .app { background: #5865f2; color: #fff; }
.edited { color: #999; font-size: 11px; }
.only-you { color: #8a6d00; font-size: 11px; font-weight: bold; }
.text { margin-top: 2px; word-wrap: break-word; }
.context { font-size: 12px; color: #616061; margin-top: 2px; }
.panel.discord .context { color: #949ba4; }
.attachment { margin-top: 4px; padding: 4px 8px; border-left: 4px solid #8e8ea0; background: #f8f8fa; border-radius: 0 4px 4px 0; }
code { background: rgba(0,0,0,.06); padding: 0 3px; border-radius: 3px; font-size: 12px; }
.panel.discord code { background: #2b2d31; }
q { display: block; border-left: 3px solid #ccc; padding-left: 6px; quotes: none; color: #444; }
.panel.discord q { color: #dbdee1; border-color: #4e5058; }
.mention { background: #e8f5fa; color: #1264a3; border-radius: 3px; padding: 0 2px; }
.panel.discord .mention { background: #3c4270; color: #c9cdfb; }
.buttons { display: flex; flex-wrap: wrap; gap: 6px; margin-top: 6px; }
.action { padding: 4px 12px; border-radius: 4px; border: 1px solid #bbb; background: #fff; cursor: pointer; font-weight: 600; }
.action.primary { background: #007a5a; border-color: #007a5a; color: #fff; }
.action.danger { background: #fff; border-color: #e01e5a; color: #e01e5a; }
.panel.discord .action { background: #4e5058; border-color: #4e5058; color: #fff; }
.panel.discord .action.primary { background: #5865f2; border-color: #5865f2; }
.panel.discord .action.danger { background: #da373c; border-color: #da373c; color: #fff; }
.panel.mattermost .action.primary { background: #1c58d9; border-color: #1c58d9; }
.action:disabled { opacity: .5; cursor: default; }
.chips { display: flex; flex-wrap: wrap; gap: 4px; padding: 6px 12px 0; border-top: 1px solid #eee; }
.chip { font-size: 11px; padding: 2px 8px; border-radius: 10px; border: 1px solid #ccc; background: #f7f7f9; cursor: pointer; }
.composer { display: flex; gap: 6px; padding: 6px 12px; }
.composer textarea { flex: 1; resize: vertical; font: 13px ui-monospace, monospace; padding: 4px 6px; }
.composer button { padding: 0 14px; }
.last-request { min-height: 18px; padding: 0 12px 6px; font-size: 11px; color: #777; }
.last-request.bad { color: #c00; }
.agent-row { padding: 0 12px 8px; font-size: 12px; }
.agent-answer { margin: 4px 0 0; max-height: 8em; overflow: auto; font-size: 11px; white-space: pre-wrap; }
.agent-answer:empty { display: none; }
.platform-form { position: absolute; top: 72px; left: 10px; right: 10px; z-index: 5; padding: 12px 14px; border-radius: 8px; background: #fff; color: #1d1c1d; box-shadow: 0 6px 24px rgba(0,0,0,.35); }
.panel.discord .platform-form { background: #313338; color: #dbdee1; }
.platform-form h3 { margin: 0 0 8px; font-size: 15px; }
.platform-form h3 small { font-weight: normal; font-size: 11px; opacity: .6; }
.platform-form .field { display: block; margin-bottom: 8px; font-size: 12px; font-weight: 600; }
.platform-form .field input, .platform-form .field textarea { display: block; width: 100%; margin-top: 2px; font: 13px ui-monospace, monospace; padding: 4px 6px; }
.platform-form .hint { display: block; font-weight: normal; opacity: .7; }
.form-error { color: #e01e5a; font-size: 12px; margin: 0 0 8px; }
.form-buttons { display: flex; justify-content: flex-end; gap: 6px; }
.form-submit { background: #007a5a; border: 1px solid #007a5a; color: #fff; border-radius: 4px; padding: 4px 12px; font-weight: 600; cursor: pointer; }
.panel.discord .form-submit { background: #5865f2; border-color: #5865f2; }
.panel.mattermost .form-submit { background: #1c58d9; border-color: #1c58d9; }
@media (max-width: 1000px) { .panels { grid-template-columns: 1fr; } .panel { height: 70vh; } }
`;
