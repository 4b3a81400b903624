//! The Lessons panel: the list of lessons with the learner's progress, and
//! an open lesson (goal, task, a hint behind a disclosure, Start, Check and
//! the verdict in words, previous and next). It shares the left column
//! with the Schema panel as a second tab ([`LeftColumn`]); an embed with
//! `panels=lessons` shows it alone.
//!
//! Progress lives in the browser's localStorage; App reads and writes it.
//! Both panels get the learning state and its callbacks as props from
//! [`Workspace`](super::Workspace); neither reads the app context.

use std::rc::Rc;

use yew::prelude::*;

use super::kept_work::ReplacedBar;
use super::lesson_dock::{LessonDock, StartHere, sample_picker};
use crate::state::aside::SetAside;
use crate::state::learn::{LearnAction, LearnState, LeftTab};
use crate::view_model::learn::{
    LessonDetail, LessonItem, SampleChoice, TextPiece, VerdictView, lesson_detail, lesson_items,
    sample_choice,
};

pub(super) fn text_html(paragraphs: &[Vec<TextPiece>]) -> Html {
    paragraphs
        .iter()
        .map(|p| {
            html! {
                <p>
                    { for p.iter().map(|piece| match piece {
                        TextPiece::Plain(t) => html! { { t.clone() } },
                        TextPiece::Code(t) => html! { <code>{ t.clone() }</code> },
                    }) }
                </p>
            }
        })
        .collect()
}

/// Props of [`LessonList`].
#[derive(Properties, PartialEq)]
pub struct LessonListProps {
    /// The lessons.
    pub items: Vec<LessonItem>,
    /// Open one.
    pub on_open: Callback<String>,
}

/// The list of lessons.
#[component(LessonList)]
pub fn lesson_list(props: &LessonListProps) -> Html {
    html! {
        <ol class="lesson-list" aria-label="All lessons">
            { for props.items.iter().map(|item| {
                let onclick = {
                    let on_open = props.on_open.clone();
                    let id = item.id.clone();
                    Callback::from(move |_: MouseEvent| on_open.emit(id.clone()))
                };
                html! {
                    <li key={item.id.clone()} class={classes!("lesson-item", item.done.then_some("done"), item.active.then_some("active"))}>
                        <button type="button" class="lesson-open" data-lesson={item.id.clone()} {onclick}>
                            <span class="lesson-number" aria-hidden="true">{ item.number }</span>
                            <span class="lesson-text">
                                <span class="lesson-title">{ item.title.clone() }</span>
                                <span class="lesson-topics">{ item.topics.clone() }</span>
                            </span>
                            if item.done {
                                <span class="done-mark" aria-label="completed" title="completed">{ "✓" }</span>
                            }
                            if item.active {
                                <span class="active-mark">{ "in progress" }</span>
                            }
                        </button>
                    </li>
                }
            }) }
        </ol>
    }
}

pub(super) fn verdict_html(v: &VerdictView) -> Html {
    html! {
        <div class={classes!("verdict", if v.passed { "passed" } else { "failed" })} role="status" aria-live="polite">
            <p class="verdict-message">{ v.message.clone() }</p>
            <ul class="verdict-checks">
                { for v.checks.iter().map(|c| html! {
                    <li class={if c.passed { "check-pass" } else { "check-fail" }}>
                        <span class="check-mark" aria-hidden="true">{ if c.passed { "✓" } else { "✗" } }</span>
                        <span class="visually-hidden">{ if c.passed { "Passed: " } else { "Not yet: " } }</span>
                        <span class="check-goal">{ c.goal.clone() }</span>
                        if c.found != c.goal {
                            <span class="check-found">{ c.found.clone() }</span>
                        }
                    </li>
                }) }
            </ul>
        </div>
    }
}

/// Props of [`LessonView`].
#[derive(Properties, PartialEq)]
pub struct LessonViewProps {
    /// The lesson.
    pub lesson: Rc<LessonDetail>,
    /// Dispatch a learning action.
    pub on_action: Callback<LearnAction>,
    /// The sample-size picker, for a lesson that keeps sample rows.
    #[prop_or_default]
    pub sample: Option<SampleChoice>,
}

/// One open lesson.
#[component(LessonView)]
pub fn lesson_view(props: &LessonViewProps) -> Html {
    let l = &props.lesson;
    let act = |a: LearnAction| {
        let on_action = props.on_action.clone();
        Callback::from(move |_: MouseEvent| on_action.emit(a.clone()))
    };
    let on_hint = {
        let on_action = props.on_action.clone();
        let id = l.id.clone();
        Callback::from(move |e: Event| {
            let open = e
                .target_unchecked_into::<web_sys::HtmlElement>()
                .has_attribute("open");
            if open {
                on_action.emit(LearnAction::HintSeen(id.clone()));
            }
        })
    };
    html! {
        <article class="lesson" aria-labelledby="lesson-title">
            <nav class="lesson-nav" aria-label="Lesson navigation">
                <button type="button" class="button small" onclick={act(LearnAction::CloseLesson)}>{ "All lessons" }</button>
                <span class="spacer"></span>
                <button type="button" class="button small" aria-label="Previous lesson" disabled={l.previous.is_none()}
                    onclick={act(LearnAction::Open(l.previous.clone().unwrap_or_default()))}>{ "← Previous" }</button>
                <button type="button" class="button small" aria-label="Next lesson" disabled={l.next.is_none()}
                    onclick={act(LearnAction::Open(l.next.clone().unwrap_or_default()))}>{ "Next →" }</button>
            </nav>
            <p class="lesson-kicker">
                { format!("Lesson {}", l.number) }
                if l.done {
                    <span class="done-mark lesson-done">{ "✓ completed" }</span>
                }
            </p>
            <h3 class="lesson-heading" id="lesson-title">{ l.title.clone() }</h3>
            if !l.topics.is_empty() {
                <p class="lesson-topics">{ l.topics.join("; ") }</p>
            }
            <h4 class="lesson-section">{ "Goal" }</h4>
            { text_html(&l.goal) }
            <h4 class="lesson-section">{ "Your task" }</h4>
            { text_html(&l.task) }
            if !l.goals.is_empty() {
                <ul class="lesson-goals" aria-label="What the check looks for">
                    { for l.goals.iter().map(|g| html! { <li>{ g.clone() }</li> }) }
                </ul>
            }
            <details class="lesson-hint" ontoggle={on_hint}>
                <summary>{ "Hint" }</summary>
                { text_html(&l.hint) }
            </details>
            if l.active {
                <p class="muted lesson-running">{ "This lesson is running: its task, hint and Check are pinned at the top of this column." }</p>
            } else {
                <p class="muted lesson-warning">{ "The lesson sets up its own tables and design. Yours are kept aside while it runs and come back when you leave it." }</p>
                <div class="lesson-actions">
                    <button type="button" class="button primary" onclick={act(LearnAction::Start(l.id.clone()))}>{ "Start lesson" }</button>
                    <button type="button" class="button small" onclick={act(LearnAction::Resume(l.id.clone()))}
                        title="Runs the lesson's checks on the tables the playground holds now, without setting up the lesson's">
                        { "Continue on these tables" }
                    </button>
                    if let Some(choice) = &props.sample {
                        { sample_picker(choice, &props.on_action) }
                    }
                </div>
            }
            if !l.rules.is_empty() {
                <p class="muted lesson-rules">{ format!("Advisor rules: {}", l.rules.join(", ")) }</p>
            }
        </article>
    }
}

/// Props of [`LessonsPanel`].
#[derive(Properties)]
pub struct LessonsPanelProps {
    /// The learner's progress, the open lesson and its verdict.
    pub learn: Rc<LearnState>,
    /// Dispatches a learning action.
    pub on_action: Callback<LearnAction>,
    /// The header's maximize button (empty where the panel cannot take
    /// the workspace).
    #[prop_or_default]
    pub maximize: Html,
}

// The learning state is compared by identity: the reducer makes a new one
// whenever it changes.
impl PartialEq for LessonsPanelProps {
    fn eq(&self, other: &Self) -> bool {
        Rc::ptr_eq(&self.learn, &other.learn)
            && self.on_action == other.on_action
            && self.maximize == other.maximize
    }
}

/// The Lessons panel: the list with the progress, or the open lesson.
#[component(LessonsPanel)]
pub fn lessons_panel(props: &LessonsPanelProps) -> Html {
    let learn = &props.learn;
    let total = learn_total();
    let done = learn.completed().len();
    // What it shows is rebuilt only when the progress, the open or
    // started lesson or the verdict changed (not when, say, the tab
    // does), and the callbacks are made once.
    let key = (
        learn.saved.current.clone(),
        learn.completed().clone(),
        learn.active_id().map(str::to_string),
        learn.verdict.clone(),
    );
    let detail = use_memo(key.clone(), |(current, completed, active, verdict)| {
        current.as_deref().and_then(|id| {
            lesson_detail(id, completed, active.as_deref(), verdict.as_deref()).map(Rc::new)
        })
    });
    let items = use_memo((key.1, key.2), |(completed, active)| {
        lesson_items(completed, active.as_deref())
    });
    let cbs = use_memo(props.on_action.clone(), |on_action| {
        (
            on_action.reform(LearnAction::Open),
            on_action.reform(|_: MouseEvent| LearnAction::ResetProgress),
        )
    });
    let (on_open, on_reset) = (*cbs).clone();
    let on_action = props.on_action.clone();
    html! {
        <section class="panel lessons-panel" aria-label="Lessons" style="grid-area: schema">
            <header class="panel-head">
                <h2 class="panel-title">{ "Lessons" }</h2>
                <span class="lesson-progress" aria-label="Progress">{ format!("{done} of {total} done") }</span>
                { props.maximize.clone() }
            </header>
            <div class="panel-body">
                if let Some(lesson) = (*detail).clone() {
                    <LessonView key={lesson.id.clone()} sample={sample_choice(&lesson.id, learn.saved.sample_rows)}
                        lesson={Rc::clone(&lesson)} {on_action} />
                } else {
                    if let Err(e) = crate::view_model::learn::catalog() {
                        <p class="field-error" role="alert">{ format!("The lessons could not be loaded: {e}") }</p>
                    }
                    <p class="muted lesson-intro">{ "Each lesson sets up tables and a design, asks you to fix one thing, and checks your work. Completed lessons are remembered in this browser." }</p>
                    <LessonList items={(*items).clone()} {on_open} />
                    if done > 0 {
                        <button type="button" class="button small" onclick={on_reset}>{ "Forget progress" }</button>
                    }
                }
            </div>
        </section>
    }
}

fn learn_total() -> usize {
    crate::view_model::learn::catalog()
        .as_ref()
        .map_or(0, |c| c.lessons().len())
}

/// Props of [`LeftColumn`].
#[derive(Properties)]
pub struct LeftColumnProps {
    /// Whether the Schema panel is shown (it is the children).
    pub schema: bool,
    /// Whether the Lessons panel is shown.
    pub lessons: bool,
    /// The learner's progress, the open and the running lesson, and the
    /// tab shown.
    pub learn: Rc<LearnState>,
    /// Whether the app is an embed (no "start here" card).
    pub embed: bool,
    /// The learner's work set aside (by an import or a lesson), if any.
    pub replaced: Option<SetAside>,
    /// Dispatches a learning action.
    pub on_learn: Callback<LearnAction>,
    /// Puts the work set aside back.
    pub on_undo: Callback<()>,
    /// Forgets the work set aside.
    pub on_forget: Callback<()>,
    /// The Schema panel.
    #[prop_or_default]
    pub children: Html,
    /// The Lessons panel's maximize button.
    #[prop_or_default]
    pub lessons_maximize: Html,
}

impl PartialEq for LeftColumnProps {
    fn eq(&self, other: &Self) -> bool {
        Rc::ptr_eq(&self.learn, &other.learn)
            && (self.schema, self.lessons, self.embed) == (other.schema, other.lessons, other.embed)
            && self.replaced == other.replaced
            && (&self.on_learn, &self.on_undo, &self.on_forget)
                == (&other.on_learn, &other.on_undo, &other.on_forget)
            && self.children == other.children
            && self.lessons_maximize == other.lessons_maximize
    }
}

/// The left column: Schema and Lessons as two tabs (both stay mounted so
/// half-typed forms survive switching), or whichever one is shown.
#[component(LeftColumn)]
pub fn left_column(props: &LeftColumnProps) -> Html {
    let both = props.schema && props.lessons;
    let tab = if !props.lessons {
        LeftTab::Schema
    } else if !props.schema {
        LeftTab::Lessons
    } else {
        props.learn.tab
    };
    let learn = &props.learn;
    // The running lesson's detail, rebuilt only when it or its verdict
    // changes.
    let active = use_memo(
        (
            learn.active_id().map(str::to_string),
            learn.completed().clone(),
            learn.verdict.clone(),
        ),
        |(active, completed, verdict)| {
            active.as_deref().and_then(|id| {
                lesson_detail(id, completed, Some(id), verdict.as_deref()).map(Rc::new)
            })
        },
    );
    let first = use_memo((), |()| {
        crate::view_model::learn::catalog()
            .as_ref()
            .ok()
            .and_then(|c| c.lessons().first().map(|l| l.id.clone()))
            .and_then(|id| lesson_detail(&id, &Default::default(), None, None))
            .map(Rc::new)
    });
    let replaced = props.replaced.as_ref().map(|aside| {
        let what = match &aside.why {
            crate::share::Why::Replaced(what) => what.clone(),
            crate::share::Why::Lesson(_) => "a lesson".into(),
        };
        let (work, verb) = aside.phrase(true);
        (what, crate::state::aside::capital(&work), verb)
    });
    html! {
        <div class="left-column" style="grid-area: schema">
            if props.lessons {
                { lesson_on_top(props, (*active).clone(), (*first).clone()) }
            }
            if let Some((what, work, verb)) = replaced {
                <ReplacedBar {what} {work} {verb} on_undo={props.on_undo.clone()} on_forget={props.on_forget.clone()} />
            }
            if both {
                { left_tabs(tab, &props.on_learn) }
            }
            if props.schema {
                <div class="left-pane" id="left-pane-schema" role={both.then_some("tabpanel")} aria-labelledby={both.then_some("left-tab-schema")} hidden={tab != LeftTab::Schema}>
                    { props.children.clone() }
                </div>
            }
            if props.lessons {
                <div class="left-pane" id="left-pane-lessons" role={both.then_some("tabpanel")} aria-labelledby={both.then_some("left-tab-lessons")} hidden={tab != LeftTab::Lessons}>
                    <LessonsPanel learn={Rc::clone(&props.learn)} on_action={props.on_learn.clone()} maximize={props.lessons_maximize.clone()} />
                </div>
            }
        </div>
    }
}

/// Above the tabs: the running lesson's dock (`active`), or (before any
/// lesson, and not in an embed) the card that starts the `first` one.
fn lesson_on_top(
    props: &LeftColumnProps,
    active: Option<Rc<LessonDetail>>,
    first: Option<Rc<LessonDetail>>,
) -> Html {
    let on_action = props.on_learn.clone();
    html! {
        if let Some(lesson) = active {
            <LessonDock sample={sample_choice(&lesson.id, props.learn.saved.sample_rows)}
                {lesson} total={learn_total()} {on_action} />
        } else if !props.embed && props.learn.show_start_here() && let Some(lesson) = first {
            <StartHere {lesson} {on_action} />
        }
    }
}

/// The Schema and Lessons tabs; arrow keys move between the two, as in
/// any tab list.
fn left_tabs(tab: LeftTab, on_learn: &Callback<LearnAction>) -> Html {
    let onkeydown = {
        let on_learn = on_learn.clone();
        Callback::from(move |e: KeyboardEvent| {
            let to = match e.key().as_str() {
                "ArrowLeft" | "Home" => LeftTab::Schema,
                "ArrowRight" | "End" => LeftTab::Lessons,
                _ => return,
            };
            e.prevent_default();
            on_learn.emit(LearnAction::Tab(to));
            let id = match to {
                LeftTab::Schema => "left-tab-schema",
                LeftTab::Lessons => "left-tab-lessons",
            };
            if let Some(el) = gloo::utils::document().get_element_by_id(id)
                && let Ok(el) = wasm_bindgen::JsCast::dyn_into::<web_sys::HtmlElement>(el)
            {
                let _ = el.focus();
            }
        })
    };
    let tab_button = |t: LeftTab, id: &'static str, pane: &'static str, label: &'static str| {
        let selected = tab == t;
        let onclick = on_learn.reform(move |_: MouseEvent| LearnAction::Tab(t));
        html! {
            <button
                type="button"
                role="tab"
                id={id}
                class={classes!("left-tab", selected.then_some("selected"))}
                aria-selected={selected.to_string()}
                aria-controls={pane}
                tabindex={if selected { "0" } else { "-1" }}
                {onclick}
            >
                { label }
            </button>
        }
    };
    html! {
        <div class="left-tabs" role="tablist" aria-label="Left column" onkeydown={onkeydown}>
            { tab_button(LeftTab::Schema, "left-tab-schema", "left-pane-schema", "Schema") }
            { tab_button(LeftTab::Lessons, "left-tab-lessons", "left-pane-lessons", "Lessons") }
        </div>
    }
}
