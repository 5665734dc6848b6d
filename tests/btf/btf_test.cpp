// BTF parsing, on a blob built here by hand (its layout from the kernel's
// Documentation/bpf/btf.rst) and on the host kernel's own BTF when it has one.
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>

#include "arch/arch.h"
#include "src/btf/btf.h"
#include "src/definition/btf_probe.h"

namespace kpp {
namespace {

class BlobWriter {
 public:
  uint32_t str(const std::string &s) {
    uint32_t at = static_cast<uint32_t>(strings_.size());
    strings_ += s;
    strings_ += '\0';
    return at;
  }
  void u32(uint32_t v) { types_.append(reinterpret_cast<const char *>(&v), 4); }
  void type(uint32_t name, uint32_t kind, uint32_t vlen, uint32_t size_or_type, bool kind_flag = false) {
    u32(name);
    u32((kind << 24) | vlen | (kind_flag ? 0x80000000u : 0));
    u32(size_or_type);
  }
  std::string blob() const {
    std::string out;
    auto put = [&out](uint32_t v) { out.append(reinterpret_cast<const char *>(&v), 4); };
    uint16_t magic = 0xeb9f;
    out.append(reinterpret_cast<const char *>(&magic), 2);
    out += '\1';  // version
    out += '\0';  // flags
    put(24);      // hdr_len
    put(0);
    put(static_cast<uint32_t>(types_.size()));
    put(static_cast<uint32_t>(types_.size()));
    put(static_cast<uint32_t>(strings_.size()));
    return out + types_ + strings_;
  }

 private:
  std::string types_;
  std::string strings_ = std::string(1, '\0');
};

// ssize_t vfs_read(struct file *file, char *buf, size_t count, loff_t *pos), as in fs/read_write.c.
std::string vfs_read_blob() {
  BlobWriter w;
  w.type(w.str("long int"), 1, 0, 8);          // 1: INT
  w.u32((1u << 24) | 64);                      //    signed, 64 bits
  w.type(w.str("long unsigned int"), 1, 0, 8); // 2: INT
  w.u32(64);
  w.type(w.str("size_t"), 8, 0, 2);            // 3: TYPEDEF -> 2
  w.type(w.str("ssize_t"), 8, 0, 1);           // 4: TYPEDEF -> 1
  w.type(w.str("file"), 4, 0, 200);            // 5: STRUCT file (no members here)
  w.type(0, 2, 0, 5);                          // 6: PTR -> 5
  w.type(w.str("char"), 1, 0, 1);              // 7: INT char
  w.u32((2u << 24) | 8);
  w.type(0, 2, 0, 7);                          // 8: PTR -> char
  w.type(0, 13, 4, 4);                         // 9: FUNC_PROTO returning ssize_t, 4 params
  w.u32(w.str("file")); w.u32(6);
  w.u32(w.str("buf")); w.u32(8);
  w.u32(w.str("count")); w.u32(3);
  w.u32(w.str("pos")); w.u32(6);
  w.type(w.str("vfs_read"), 12, 1, 9);         // 10: FUNC vfs_read (global)
  w.type(w.str("take_file"), 12, 1, 12);       // 11: FUNC take_file, its prototype next
  w.type(0, 13, 1, 0);                         // 12: FUNC_PROTO void (struct file f)
  w.u32(w.str("f")); w.u32(5);                 //     a struct passed by value
  return w.blob();
}

TEST(Btf, FunctionPrototypeAndTypes) {
  auto btf = btf::Btf::parse(vfs_read_blob());
  ASSERT_TRUE(btf) << btf.error().message;
  EXPECT_EQ(btf->type_count(), 12u);
  auto fn = btf->function("vfs_read");
  ASSERT_TRUE(fn);
  ASSERT_EQ(fn->params.size(), 4u);
  EXPECT_EQ(fn->params[0].name, "file");
  EXPECT_EQ(fn->params[2].name, "count");
  btf::Scalar count = btf->scalar(fn->params[2].type);
  EXPECT_EQ(count.kind, btf::Scalar::Kind::Int);
  EXPECT_EQ(count.size, 8u);
  EXPECT_FALSE(count.is_signed);
  EXPECT_EQ(count.name, "size_t");
  btf::Scalar ret = btf->scalar(fn->return_type);
  EXPECT_TRUE(ret.is_signed);
  EXPECT_EQ(btf->scalar(fn->params[0].type).name, "struct file *");
  EXPECT_EQ(btf->scalar(fn->params[1].type).kind, btf::Scalar::Kind::Pointer);
  EXPECT_FALSE(btf->function("vfs_write"));
}

TEST(Btf, RejectsWhatIsNotBtf) {
  EXPECT_FALSE(btf::Btf::parse("short"));
  std::string blob = vfs_read_blob();
  blob[0] = 'x';
  EXPECT_FALSE(btf::Btf::parse(blob));
  std::string cut = vfs_read_blob();
  cut.resize(cut.size() - 10);
  EXPECT_FALSE(btf::Btf::parse(cut));
}

TEST(Btf, DefinitionsFromAPrototype) {
  auto btf = btf::Btf::parse(vfs_read_blob());
  ASSERT_TRUE(btf);
  const arch::Registers *x86 = arch::for_machine(62);
  ASSERT_TRUE(x86);
  BuildOptions options;
  auto entry = build_btf_probe(*parse_probe_spec("vfs_read count buf:string"), *btf, *x86, options);
  ASSERT_TRUE(entry) << entry.error().message;
  ASSERT_EQ(entry->sites.size(), 1u);
  // count is the third parameter: %dx in the x86-64 calling convention.
  const TraceDefinition &def = entry->sites[0].definition;
  EXPECT_EQ(def.symbol, "vfs_read");
  EXPECT_EQ(def.offset, 0u);
  EXPECT_EQ(format_fetch_args(def.args), "count=%dx:u64 buf_string=+0(%si):string");
  options.maxactive = 4;
  auto ret = build_btf_probe(*parse_probe_spec("vfs_read%return $retval"), *btf, *x86, options);
  ASSERT_TRUE(ret) << ret.error().message;
  EXPECT_EQ(ret->sites[0].definition.maxactive, 4u);
  EXPECT_EQ(format_fetch_args(ret->sites[0].definition.args), "arg1=$retval:s64");
  // A struct passed by value is no single register's value.
  EXPECT_FALSE(build_btf_probe(*parse_probe_spec("take_file f"), *btf, *x86, options));
  EXPECT_FALSE(build_btf_probe(*parse_probe_spec("vfs_read:3"), *btf, *x86, options));
  auto chain = build_btf_probe(*parse_probe_spec("vfs_read file->f_pos"), *btf, *x86, options);
  ASSERT_FALSE(chain);
  EXPECT_NE(chain.error().message.find("cannot read a member chain by BTF name (Linux 6.6 and later can"),
            std::string::npos)
      << chain.error().message;
  auto missing = build_btf_probe(*parse_probe_spec("vfs_read cnt"), *btf, *x86, options);
  ASSERT_FALSE(missing);
  EXPECT_NE(missing.error().hint.find("count"), std::string::npos) << missing.error().hint;
}

// Where the kernel reads BTF member chains itself (6.6 on: 6.12 in the guest,
// guest.backports.kprobe_probe_kernel), the chain is written by name and the
// kernel types it; only what it takes is written.
TEST(Btf, MemberChainsWhereTheKernelReadsThem) {
  auto btf = btf::Btf::parse(vfs_read_blob());
  ASSERT_TRUE(btf);
  const arch::Registers *x86 = arch::for_machine(62);
  ASSERT_TRUE(x86);
  BuildOptions options;
  options.btf_member_chains = true;
  auto entry = build_btf_probe(*parse_probe_spec("vfs_read file->f_pos file->f_path.dentry:x64 count"), *btf,
                               *x86, options);
  ASSERT_TRUE(entry) << entry.error().message;
  EXPECT_EQ(format_fetch_args(entry->sites[0].definition.args),
            "f_pos=file->f_pos dentry=file->f_path.dentry:x64 count=%dx:u64");
  auto index = build_btf_probe(*parse_probe_spec("vfs_read file->f_inode[1]"), *btf, *x86, options);
  ASSERT_FALSE(index);
  EXPECT_NE(index.error().message.find("array indexes need a DWARF vmlinux"), std::string::npos);
  auto scalar = build_btf_probe(*parse_probe_spec("vfs_read count->x"), *btf, *x86, options);
  ASSERT_FALSE(scalar);
  EXPECT_NE(scalar.error().message.find("a chain starts with '->' on a pointer parameter"), std::string::npos)
      << scalar.error().message;
}

TEST(Btf, TheHostKernelsBtf) {
  const char *path = "/sys/kernel/btf/vmlinux";
  if (!std::filesystem::exists(path)) GTEST_SKIP() << "no " << path;
  auto btf = btf::Btf::load(path);
  ASSERT_TRUE(btf) << btf.error().message;
  auto fn = btf->function("vfs_read");
  ASSERT_TRUE(fn);
  std::vector<std::string> names;
  for (const btf::Param &p : fn->params) names.push_back(p.name);
  EXPECT_EQ(names, (std::vector<std::string>{"file", "buf", "count", "pos"}));
}

}  // namespace
}  // namespace kpp
