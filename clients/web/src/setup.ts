// The new-game form: a preset and its options (from ListRulesets), the seats, CreateGame.
import type { MessageInitShape } from "@bufbuild/protobuf";
import {
  OptionType,
  type OptionValueSchema,
  type SeatSpecSchema,
  type CreateGameResponse,
  type ListRulesetsResponse,
  type OptionValue,
  type RuleOption,
  type Ruleset,
  type ScopaClient,
  TimeoutAction,
} from "@scopa/client";
import { requestId } from "./api.js";
import { h, replace } from "./dom.js";
import { errorInWords } from "./messages.js";

/** The bot levels a seat can be given (SeatSpec.bot, CreateGameRequest.timeout_bot). */
export const BOT_LEVELS = ["random", "greedy", "ismcts"] as const;
/** The timeout bot preselected: the server's default level (CreateGameRequest.timeout_bot). */
const DEFAULT_TIMEOUT_BOT = "greedy";
/** Options the form sets elsewhere: the number of players is the number of seats. */
const HIDDEN_OPTIONS = new Set(["players"]);
/** The longest turn clock the service takes (CreateGameRequest.turn_timeout_s: a week). */
const MAX_TURN_TIMEOUT_S = 604_800;
/** The most timeouts a seat may be given before it forfeits (CreateGameRequest.forfeit_after). */
const MAX_FORFEIT_AFTER = 100;

/** What the form hands back once the game exists. */
export type Created = (response: CreateGameResponse, mySeat: number) => void;

type OptionKind = OptionValue["kind"];

function valueText(kind: OptionKind): string {
  return kind.case === undefined ? "" : String(kind.value);
}

/** The new-game form, rendered into `root`. */
export class SetupScreen {
  private rulesets: ListRulesetsResponse | undefined;
  private preset: Ruleset | undefined;
  private players = 2;
  private readonly overrides = new Map<string, OptionKind>();

  constructor(
    private readonly client: ScopaClient,
    private readonly root: HTMLElement,
    private readonly created: Created,
  ) {}

  /** Shows the form once `rulesets` (ListRulesets, shared with the lobby's filter) arrive. */
  async start(rulesets: Promise<ListRulesetsResponse>): Promise<void> {
    replace(this.root, h("p", { class: "loading" }, "Loading the games…"));
    try {
      this.rulesets = await rulesets;
    } catch (error) {
      const { text, reason } = errorInWords(error);
      replace(this.root, h("p", { class: "error", role: "alert", "data-reason": reason }, text));
      return;
    }
    this.choose(this.rulesets.rulesets[0]?.id ?? "scopa");
  }

  private choose(id: string): void {
    this.preset = this.rulesets?.rulesets.find((r) => r.id === id);
    this.overrides.clear();
    const counts = this.preset?.seatCounts ?? [2];
    if (!counts.includes(this.players)) this.players = counts[0] ?? 2;
    this.render();
  }

  private render(): void {
    const rulesets = this.rulesets;
    const preset = this.preset;
    if (rulesets === undefined || preset === undefined) return;
    const form = h(
      "form",
      { class: "setup", "aria-labelledby": "setup-title" },
      h("h1", { id: "setup-title" }, "New game"),
      h(
        "label",
        { class: "field" },
        "Game ",
        h(
          "select",
          { id: "preset", onchange: (e) => this.choose((e.target as HTMLSelectElement).value) },
          ...rulesets.rulesets.map((r) => h("option", { value: r.id, selected: r.id === preset.id }, r.displayName || r.id)),
        ),
      ),
      h("p", { class: "description" }, preset.description),
      preset.source ? h("p", { class: "source" }, `Source: ${preset.source}`) : null,
      this.seatFields(preset),
      this.optionFields(rulesets.options, preset),
      this.lobbyFields(),
      h("button", { type: "submit", id: "create" }, "Create game"),
      h("p", { class: "error", role: "alert", id: "setup-error" }),
    );
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      void this.submit(form);
    });
    replace(this.root, form);
  }

  private seatFields(preset: Ruleset): HTMLElement {
    const seats = Array.from({ length: this.players }, (_, seat) =>
      h(
        "div",
        { class: "seat-row" },
        h("span", { class: "seat-label" }, `Seat ${seat + 1}`),
        h(
          "select",
          { "data-seat-kind": seat, "aria-label": `Seat ${seat + 1}: who plays` },
          h("option", { value: "me", selected: seat === 0 }, "Me"),
          h("option", { value: "open", selected: seat !== 0 }, "Open seat (invite link)"),
          ...BOT_LEVELS.map((level) => h("option", { value: `bot:${level}` }, `Bot: ${level}`)),
        ),
        h("input", { type: "text", maxlength: 64, "data-seat-name": seat, placeholder: seat === 0 ? "Your name" : "Name (optional)", "aria-label": `Seat ${seat + 1}: name` }),
      ),
    );
    return h(
      "fieldset",
      { class: "seats" },
      h("legend", {}, "Seats"),
      h(
        "label",
        { class: "field" },
        "Players ",
        h(
          "select",
          {
            id: "players",
            onchange: (e) => {
              this.players = Number((e.target as HTMLSelectElement).value);
              this.render();
            },
          },
          ...preset.seatCounts.map((n) => h("option", { value: n, selected: n === this.players }, n)),
        ),
      ),
      ...seats,
    );
  }

  /**
   * Public (listed in the lobby) and the turn clock: the seconds a person has for each play and,
   * shown only once a clock is set, what a timeout does (a bot plays the turn; or, as well, the
   * seat forfeits at its n-th timeout) and which bot plays a turn that ran out.
   */
  private lobbyFields(): HTMLElement {
    const forfeitAfter = h(
      "label",
      { class: "field", id: "forfeit-after-field", hidden: true },
      "Timeouts that forfeit the game (1 to 100; empty: the third) ",
      h("input", { type: "number", id: "forfeit-after", min: 1, max: MAX_FORFEIT_AFTER, step: 1, inputmode: "numeric" }),
    );
    const action = h(
      "select",
      { id: "timeout-action", onchange: (e) => (forfeitAfter.hidden = (e.target as HTMLSelectElement).value !== "forfeit") },
      h("option", { value: "bot", selected: true }, "a bot plays the turn; the game goes on"),
      h("option", { value: "forfeit" }, "a bot plays the turn, and after a number of timeouts the seat forfeits (resigns)"),
    );
    const bot = h(
      "select",
      { id: "timeout-bot" },
      ...BOT_LEVELS.map((level) => h("option", { value: level, selected: level === DEFAULT_TIMEOUT_BOT }, `${level}${level === DEFAULT_TIMEOUT_BOT ? " (the default)" : ""}`)),
    );
    const clockOptions = h(
      "div",
      { class: "clock-options", id: "clock-options", hidden: true },
      h("label", { class: "field" }, "When a turn's time runs out ", action),
      h("label", { class: "field", id: "timeout-bot-field" }, "The bot that plays a turn whose time ran out ", bot),
      forfeitAfter,
    );
    const showClockOptions = (e: Event): void => {
      const text = (e.target as HTMLInputElement).value.trim();
      clockOptions.hidden = text === "" || Number(text) === 0;
    };
    return h(
      "fieldset",
      { class: "lobby-options" },
      h("legend", {}, "Lobby and clock"),
      h(
        "label",
        { class: "field" },
        h("input", { type: "checkbox", id: "public" }),
        "Public game: list it in the lobby, where anyone can take an open seat without an invite link",
      ),
      h(
        "label",
        { class: "field" },
        "Turn time limit in seconds (empty: none) ",
        h("input", { type: "number", id: "turn-timeout", min: 1, max: MAX_TURN_TIMEOUT_S, step: 1, inputmode: "numeric", oninput: showClockOptions }),
      ),
      clockOptions,
    );
  }

  private optionFields(options: readonly RuleOption[], preset: Ruleset): HTMLElement {
    const shown = options.filter((o) => !HIDDEN_OPTIONS.has(o.name));
    return h(
      "details",
      { class: "options" },
      h("summary", {}, `Rule options (${shown.length}; the preset's values are preselected)`),
      ...shown.map((option) => this.optionField(option, preset)),
    );
  }

  private optionField(option: RuleOption, preset: Ruleset): HTMLElement {
    const current = this.overrides.get(option.name) ?? preset.options[option.name]?.kind ?? option.defaultValue?.kind ?? { case: undefined };
    const id = `option-${option.name}`;
    const set = (kind: OptionKind): void => {
      const presetValue = preset.options[option.name]?.kind ?? option.defaultValue?.kind;
      if (presetValue !== undefined && valueText(presetValue) === valueText(kind)) this.overrides.delete(option.name);
      else this.overrides.set(option.name, kind);
    };
    let control: HTMLElement;
    if (option.type === OptionType.BOOL) {
      control = h("input", {
        id,
        type: "checkbox",
        checked: current.case === "boolValue" && current.value,
        onchange: (e) => set({ case: "boolValue", value: (e.target as HTMLInputElement).checked }),
      });
    } else if (option.choices.length > 0) {
      control = h(
        "select",
        { id, onchange: (e) => set(parseValue(option, (e.target as HTMLSelectElement).value)) },
        ...option.choices.map((choice) =>
          h("option", { value: valueText(choice.kind), selected: valueText(choice.kind) === valueText(current) }, valueText(choice.kind)),
        ),
      );
    } else {
      control = h("input", {
        id,
        type: option.type === OptionType.INT ? "number" : "text",
        value: valueText(current),
        onchange: (e) => set(parseValue(option, (e.target as HTMLInputElement).value)),
      });
    }
    return h(
      "div",
      { class: "option", "data-option": option.name },
      h("label", { for: id }, option.name.replaceAll("_", " ")),
      control,
      h("p", { class: "description" }, option.description),
      option.source ? h("p", { class: "source" }, `Source: ${option.source}`) : null,
    );
  }

  private async submit(form: HTMLFormElement): Promise<void> {
    const preset = this.preset;
    if (preset === undefined) return;
    const error = form.querySelector<HTMLElement>("#setup-error");
    const seats: MessageInitShape<typeof SeatSpecSchema>[] = [];
    let mine = -1;
    for (let seat = 0; seat < this.players; seat += 1) {
      const kind = form.querySelector<HTMLSelectElement>(`[data-seat-kind='${seat}']`)?.value ?? "open";
      const displayName = form.querySelector<HTMLInputElement>(`[data-seat-name='${seat}']`)?.value.trim() ?? "";
      if (kind === "me") {
        if (mine !== -1) {
          if (error) error.textContent = "Choose “Me” for one seat only; the others are open seats or bots.";
          return;
        }
        mine = seat;
      }
      seats.push({ displayName, open: kind === "open", bot: kind.startsWith("bot:") ? kind.slice(4) : "" });
    }
    if (mine === -1) {
      if (error) error.textContent = "Choose “Me” for the seat you play.";
      return;
    }
    const options: Record<string, MessageInitShape<typeof OptionValueSchema>> = {};
    for (const [name, kind] of this.overrides) {
      if (kind.case === "intValue" && !Number.isInteger(kind.value)) {
        if (error) error.textContent = `Enter a whole number for “${name.replaceAll("_", " ")}”.`;
        return;
      }
      options[name] = { kind };
    }
    const isPublic = form.querySelector<HTMLInputElement>("#public")?.checked ?? false;
    const clock = clockRequest({
      turnTimeout: form.querySelector<HTMLInputElement>("#turn-timeout")?.value ?? "",
      action: form.querySelector<HTMLSelectElement>("#timeout-action")?.value ?? "bot",
      forfeitAfter: form.querySelector<HTMLInputElement>("#forfeit-after")?.value ?? "",
      bot: form.querySelector<HTMLSelectElement>("#timeout-bot")?.value ?? DEFAULT_TIMEOUT_BOT,
    });
    if (typeof clock === "string") {
      if (error) error.textContent = clock;
      return;
    }
    const button = form.querySelector<HTMLButtonElement>("#create");
    if (button) button.disabled = true;
    try {
      const response = await this.client.createGame({
        preset: preset.id,
        options,
        seats,
        requestId: requestId(),
        public: isPublic,
        ...clock,
      });
      this.created(response, mine);
    } catch (failure) {
      const { text, reason } = errorInWords(failure);
      if (error) {
        error.textContent = text;
        error.dataset["reason"] = reason;
      }
      if (button) button.disabled = false;
    }
  }
}

/** The turn clock's fields as typed and chosen in the form (the values of its controls). */
export interface ClockFields {
  /** Turn time limit in seconds; empty: no clock. */
  readonly turnTimeout: string;
  /** "bot" (a bot plays a timed-out turn) or "forfeit" (and the seat forfeits at a timeout). */
  readonly action: string;
  /** With "forfeit": the timeout that forfeits; empty: the server's (the third). */
  readonly forfeitAfter: string;
  /** The bot level that plays a timed-out turn (one of BOT_LEVELS). */
  readonly bot: string;
}

/** What CreateGame is sent for the turn clock. */
export interface ClockRequest {
  turnTimeoutS: number;
  timeoutAction?: TimeoutAction;
  forfeitAfter?: number;
  timeoutBot?: string;
}

/**
 * The turn clock's part of CreateGameRequest (turn_timeout_s, timeout_action, forfeit_after,
 * timeout_bot), or the words of why the fields are refused. Without a clock nothing else is sent
 * (the server refuses the others without turn_timeout_s).
 */
export function clockRequest(fields: ClockFields): ClockRequest | string {
  const timeoutText = fields.turnTimeout.trim();
  const turnTimeoutS = timeoutText === "" ? 0 : Number(timeoutText);
  if (!Number.isInteger(turnTimeoutS) || turnTimeoutS < 0 || turnTimeoutS > MAX_TURN_TIMEOUT_S) {
    return `Enter the turn time limit as whole seconds from 1 to ${MAX_TURN_TIMEOUT_S}, or leave it empty.`;
  }
  if (turnTimeoutS === 0) return { turnTimeoutS };
  if (!(BOT_LEVELS as readonly string[]).includes(fields.bot)) return `Choose the timeout bot: one of ${BOT_LEVELS.join(", ")}.`;
  const clock = { turnTimeoutS, timeoutBot: fields.bot };
  if (fields.action !== "forfeit") return { ...clock, timeoutAction: TimeoutAction.BOT_PLAYS };
  const text = fields.forfeitAfter.trim();
  const forfeitAfter = text === "" ? 0 : Number(text);
  if (!Number.isInteger(forfeitAfter) || forfeitAfter < 0 || forfeitAfter > MAX_FORFEIT_AFTER) {
    return `Enter the timeouts that forfeit as a whole number from 1 to ${MAX_FORFEIT_AFTER}, or leave it empty.`;
  }
  return { ...clock, timeoutAction: TimeoutAction.FORFEIT, forfeitAfter };
}

function parseValue(option: RuleOption, text: string): OptionKind {
  if (option.type === OptionType.INT) return { case: "intValue", value: Number.parseInt(text, 10) };
  if (option.type === OptionType.BOOL) return { case: "boolValue", value: text === "true" };
  return { case: "stringValue", value: text };
}
