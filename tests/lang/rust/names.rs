// A Rust program whose functions have the shapes Rust's tools name
// (tests/lang): free functions, an inherent method, a trait method, a
// generic function's instantiations (none inlined) and a closure. Run with an
// argument N it loops N times, then prints what it computed. std only.
use std::env;

pub struct Shop {
    name: String,
    stock: i32,
}

pub trait Describe {
    fn describe(&self) -> usize;
}

#[inline(never)]
pub fn price(qty: i32, unit: f64) -> f64 {
    qty as f64 * unit
}

#[inline(never)]
pub fn restock(item: &str, n: i32) -> i32 {
    item.len() as i32 + n
}

impl Shop {
    #[inline(never)]
    pub fn add(&mut self, n: i32) -> i32 {
        self.stock += n;
        self.stock
    }
}

impl Describe for Shop {
    #[inline(never)]
    fn describe(&self) -> usize {
        self.name.len() + self.stock as usize
    }
}

#[inline(never)]
pub fn largest<T: PartialOrd + Copy>(a: T, b: T) -> T {
    if a > b { a } else { b }
}

fn main() {
    let loops: i32 = env::args().nth(1).and_then(|s| s.parse().ok()).unwrap_or(1);
    let mut shop = Shop { name: String::from("corner"), stock: 0 };
    let mut total = 0.0;
    let mut count: usize = 0;
    let mut add = |v: f64| total += v;
    for i in 0..loops {
        add(price(i + 1, 1.5));
        let item = format!("item{}", i);
        count += restock(&item, i) as usize;
        count += shop.add(i) as usize + shop.describe();
        count += largest(i, 3) as usize + largest(1.5f64, 2.5) as usize;
    }
    println!("{} {} {}", shop.name, total, count);
}
