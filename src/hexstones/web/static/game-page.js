// The game page's one script: the game (game.js), its analysis (analysis.js), online
// play (online.js), the clocks (clock.js), conditional moves (conditional.js), the chat
// (chat.js) and play by keyboard with spoken moves (keyboard.js), which hook into
// game.js's drawing before the first state is asked for.
import { start } from "./game.js";
import "./analysis.js";
import "./online.js";
import "./clock.js";
import "./chat.js";
import "./conditional.js";
import "./keyboard.js";

start();
