//! Demo steps: a `todo!()` or a panic becomes a line that says so, and the demo goes on.

use pictures::term::ColorMode;
use pictures::{Demo, Got, Options, Skip, Val, attempt};

fn unfinished(x: u32) -> u32 {
    if x > 0 {
        todo!("draw_head: three (c, hs) draws")
    }
    x
}

struct Cache;

impl Cache {
    fn append(&mut self) -> usize {
        todo!("Cache::append: write at position len")
    }
}

#[test]
fn a_todo_names_the_function_and_the_demo_goes_on() {
    let d = Demo::new("lesson09", Options::default(), ColorMode::Ramp, 100, true).unwrap();
    let head = d.value(|| Ok(unfinished(1)));
    assert_eq!(head, Err(Skip::NotImplemented("draw_head".into())));
    // A method is named with its type, as the grader names it.
    let len = d.value(|| Ok(Cache.append()));
    assert_eq!(len, Err(Skip::NotImplemented("Cache::append".into())));
    d.line("head: ", || Ok(head.got()?.to_string()));
    d.line("two: ", || Ok((1 + 1).to_string()));
    d.line("shape: ", || Err(Skip::Error("(2, 3) vs (3, 2)".into())));
    let out = d.output();
    assert_eq!(
        out,
        "head: (not computed: `draw_head` is not implemented yet (todo!()))\n\
         two: 2\n\
         shape: (not computed: error: (2, 3) vs (3, 2))\n"
    );
    assert_eq!(d.finish(), std::process::ExitCode::from(1));
}

#[test]
fn other_panics_keep_their_message_and_place() {
    let v: Val<u32> = attempt(|| {
        let empty: Vec<u32> = Vec::new();
        Ok(empty[3])
    });
    match v {
        Err(Skip::Panicked { message, location }) => {
            assert!(message.contains("index out of bounds"), "{message}");
            assert!(location.contains("steps.rs"), "{location}");
        }
        other => panic!("expected a panic, got {other:?}"),
    }
}

#[test]
fn a_finished_demo_exits_zero() {
    let d = Demo::new("lesson09", Options::default(), ColorMode::Ramp, 100, true).unwrap();
    d.line("ok: ", || Ok("yes".into()));
    assert_eq!(d.finish(), std::process::ExitCode::SUCCESS);
}

#[test]
fn bad_arguments_are_refused() {
    assert!(Options::parse(["--svg".to_owned()]).is_err());
    assert!(Options::parse(["--bogus".to_owned()]).is_err());
    assert!(Options::parse(["--color".to_owned(), "pink".to_owned()]).is_err());
    let o = Options::parse(["--color".to_owned(), "never".to_owned()]).unwrap();
    assert_eq!(o.color, Some(ColorMode::Ramp));
}
