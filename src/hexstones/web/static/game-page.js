// The game page's one script: the game (game.js), its analysis (analysis.js), online
// play (online.js) and the clocks (clock.js), which hook into game.js's drawing before the
// first state is asked for.
import { start } from "./game.js";
import "./analysis.js";
import "./online.js";
import "./clock.js";

start();
