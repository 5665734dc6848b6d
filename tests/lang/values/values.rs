// Rust values for the values oracle (values_oracle.py): each read by
// kprobe-probe and by gdb at the same address, at several opt-levels.
struct Stock {
    name: String,
    prices: Vec<f64>,
    counts: Vec<i32>,
}

#[derive(Clone, Copy, Debug)]
enum Grade {
    Low,
    Mid = 5,
    High,
}

#[inline(never)]
fn grade(g: Grade, n: i32) -> i32 {
    println!("grade {:?} {}", g, n);
    g as i32 + n
}

#[inline(never)]
fn restock(item: &str, n: i32) -> usize {
    println!("restock {} {}", item, n);
    item.len() + n as usize
}

#[inline(never)]
fn price(unit: f64, qty: i32) -> f64 {
    let p = unit * qty as f64;
    println!("price {}", p);
    p
}

#[inline(never)]
fn show(s: &Stock, label: &String) -> usize {
    println!("{} {:?} {:?} {}", s.name, s.prices, s.counts, label);
    s.prices.len() + label.len()
}

// Option (a discriminant of its own, or a niche: the pointer, the bool) and Box.
#[inline(never)]
fn pick(count: Option<i32>, first: Option<&i32>, boxed: Option<Box<i32>>, b: Box<i32>, on: Option<bool>, name: Option<&str>) -> i32 {
    println!("pick {:?} {:?} {:?} {} {:?} {:?}", count, first, boxed, b, on, name);
    count.unwrap_or(0) + *b
}

// Option of an enum (None in the enum's niche: a value no variant has) and
// Option<Vec<T>> (None in the Vec's pointer, never null in a Vec).
#[inline(never)]
fn rank(level: Option<Grade>, list: Option<Vec<i32>>) -> usize {
    println!("rank {:?} {:?}", level, list);
    level.map_or(0, |g| g as usize) + list.map_or(0, |v| v.len())
}

fn main() {
    let names = String::from("item0 item1 item2");
    let mut total = 0;
    for i in 0..2 {
        let item = &names[i * 6..i * 6 + 5];
        total += restock(item, i as i32 + 3);
    }
    total += grade(Grade::Mid, 1) as usize + grade(Grade::High, 2) as usize + grade(Grade::Low, 3) as usize;
    let p = price(1.5, 3);
    let s = Stock { name: String::from("widget"), prices: vec![1.25, 2.5, 3.75], counts: (1..=12).collect() };
    let label = String::from("a label");
    total += show(&s, &label);
    // On the heap: its address is the same under gdb and under the probes (a
    // stack address is not: the environment differs).
    let h = Box::new(4);
    total += pick(Some(5), Some(&*h), Some(Box::new(6)), Box::new(7), Some(true), Some("opt")) as usize;
    total += pick(None, None, None, Box::new(8), None, None) as usize;
    total += rank(Some(Grade::High), Some(vec![3, 1, 4]));
    total += rank(None, None);
    total += rank(Some(Grade::Low), Some(Vec::new()));
    std::process::exit(if p > 4.0 && total > 0 { 0 } else { 1 });
}
